"""Statistics over raw samples: estimates with intervals, outliers, modality, ratios. Pure functions."""
from .estimate import Estimate, estimate, per_op, round_means
from .modality import mvalue
from .outliers import tukey_fences
from .ratio import Ratio, ratio_from_launches, ratio_of

__all__ = ["Estimate", "estimate", "per_op", "round_means", "mvalue", "tukey_fences", "Ratio", "ratio_of", "ratio_from_launches"]
