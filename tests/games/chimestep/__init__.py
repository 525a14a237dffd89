"""Tests of the Chimestep game."""
