"""Statistics over raw samples: cleaning, estimates with intervals, modality, the paired ratio's centre. Pure functions. (A ratio's interval is perflab.judge's.)"""
from .clean import CleanLaunch, clean_case
from .estimate import Estimate, estimate, indistinguishable_from_empty
from .modality import mvalue
from .ratio import Ratio

__all__ = ["CleanLaunch", "clean_case", "Estimate", "estimate", "indistinguishable_from_empty", "mvalue",
           "Ratio"]
