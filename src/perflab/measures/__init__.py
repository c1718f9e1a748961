"""What a case can be measured in besides wall and CPU time: instruction counts under valgrind
(callgrind.py: launching a worker under callgrind and reading its dumps; counts.py: the per-op
arithmetic, the stop rule and the `counts` record)."""
