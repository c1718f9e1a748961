"""What a case can be measured in besides wall and CPU time: instruction counts under valgrind
(callgrind.py)."""
