"""Statistics over raw samples: cleaning, estimates with intervals, modality, ratios. Pure functions."""
from .clean import CleanLaunch, clean_case
from .estimate import Estimate, estimate, indistinguishable_from_empty
from .modality import mvalue
from .ratio import Ratio, ratio_from_launches, ratio_of

__all__ = ["CleanLaunch", "clean_case", "Estimate", "estimate", "indistinguishable_from_empty", "mvalue",
           "Ratio", "ratio_of", "ratio_from_launches"]
