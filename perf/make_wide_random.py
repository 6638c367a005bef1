#!/usr/bin/env python3
"""make_wide_random.py N EDGES SEED OUT.dot - a random DAG of N ops and
about EDGES edges (each from a lower to a higher op), work, out and param
drawn uniformly from [1, 100), [1, 50) and [1, 100): a wide graph for perf/perf_wide.sh,
whose ideals number in the hundreds of thousands at N = 30.  Deterministic
for a seed (Python's random)."""
import random
import sys

n, edges, seed, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
r = random.Random(seed)
pairs = sorted(r.sample([(i, j) for i in range(n) for j in range(i + 1, n)], edges))
with open(out, "w") as f:
    f.write('strict digraph "wide-%d-%d-%d" {\n' % (n, edges, seed))
    for i in range(n):
        f.write("\top%d\t[out=%.6f, work=%.6f, param=%.6f];\n"
                % (i, r.uniform(1, 50), r.uniform(1, 100), r.uniform(1, 100)))
    for i, j in pairs:
        f.write("\top%d -> op%d;\n" % (i, j))
    f.write("}\n")
