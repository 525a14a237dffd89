"""playbench run: episodes on processes or Ray, run folders, replay files and verify."""
