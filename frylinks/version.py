"""The version of frylinks, recorded in every results file and in the compiled cache's keys."""

__version__ = "0.1.0"
