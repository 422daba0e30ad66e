"""Shared test configuration: draw figures off-screen."""

import os

# Set before anything imports matplotlib, so every test draws with the Agg backend.
os.environ["MPLBACKEND"] = "Agg"
