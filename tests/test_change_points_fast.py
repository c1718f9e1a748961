"""history.change_points runs PELT through ruptures' C implementation of the L2 cost (KernelCPD,
linear kernel): it must segment exactly as ruptures' Python Pelt(model="l2") does."""
import math

import numpy as np
import ruptures as rpt

from perflab.policy import DEFAULT



def test_kernel_cpd_linear_finds_the_breakpoints_of_pelt_l2():
    rng = np.random.default_rng(7)
    for _ in range(60):
        n = int(rng.integers(6, 120))
        x = rng.standard_normal(n) * rng.uniform(0.1, 3)
        for _ in range(int(rng.integers(0, 4))):
            x[int(rng.integers(1, n)):] += rng.normal(0, 3)
        x = np.round(x, int(rng.integers(0, 3))).reshape(-1, 1)  # ties too
        pen = DEFAULT.history.penalty_per_log_n * math.log(n)
        slow = rpt.Pelt(model="l2", min_size=3, jump=1).fit(x).predict(pen=pen)
        fast = rpt.KernelCPD(kernel="linear", min_size=3, jump=1).fit(x).predict(pen=pen)
        assert [int(b) for b in fast] == slow
