"""Baseline agents and solvers, one module per game."""
