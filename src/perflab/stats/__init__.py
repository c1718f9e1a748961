"""Statistics over raw samples: estimates with intervals, outliers, modality, ratios. Pure functions."""
from .estimate import Estimate, estimate, per_op
from .modality import mvalue
from .outliers import tukey_fences
from .ratio import Ratio, ratio_of

__all__ = ["Estimate", "estimate", "per_op", "mvalue", "tukey_fences", "Ratio", "ratio_of"]
