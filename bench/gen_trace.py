#!/usr/bin/env python3
"""gen_trace.py — writes a random well-formed trace for racepred-analyze
benchmarks, in RAPID's STD format (default) or racepred's text format.

    bench/gen_trace.py [--events N] [--threads T] [--vars V] [--locks L]
                       [--format std|text] [--seed S] > trace.std

Shape (fixed by the seed): thread T0 forks the others first and joins them
at the end; every thread then runs in bursts of 1-8 events.  70% of the
accesses go to the thread's own variables (no candidates), 25% to shared
variables inside a critical section of the variable's lock (ordered, or
reversible critical sections), 5% to shared variables without a lock
(races).  Reads and writes are 50/50.
"""
import argparse
import random
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--events', type=int, default=100000)
    ap.add_argument('--threads', type=int, default=4)
    ap.add_argument('--vars', type=int, default=64)
    ap.add_argument('--locks', type=int, default=4)
    ap.add_argument('--format', choices=('std', 'text'), default='std')
    ap.add_argument('--seed', type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    out = sys.stdout
    loc = [0]

    def ev(t, op, obj):
        loc[0] += 1
        if a.format == 'std':
            out.write('T%d|%s(%s)|%d\n' % (t, op, obj, loc[0]))
        else:
            out.write('T%d %s(%s)\n' % (t, op, obj))

    for t in range(1, a.threads):
        ev(0, 'fork', 'T%d' % t)
    n = a.threads - 1
    budget = a.events - (a.threads - 1)
    while n < budget:
        t = rng.randrange(a.threads)
        for _ in range(rng.randint(1, 8)):
            if n >= budget:
                break
            r = rng.random()
            op = 'r' if rng.random() < 0.5 else 'w'
            if r < 0.70:
                ev(t, op, 'L%d_%d' % (t, rng.randrange(8)))
                n += 1
            elif r < 0.95 and a.locks > 0 and n + 3 <= budget:
                v = rng.randrange(a.vars)
                lock = 'M%d' % (v % a.locks)
                ev(t, 'acq', lock)
                ev(t, op, 'V%d' % v)
                ev(t, 'rel', lock)
                n += 3
            else:
                ev(t, op, 'V%d' % rng.randrange(a.vars))
                n += 1
    for t in range(1, a.threads):
        ev(0, 'join', 'T%d' % t)


if __name__ == '__main__':
    main()
