#!/usr/bin/env python3
"""Reconvergence test generator: random structured GLSL compute kernels that
record a ballot at each step, with expected outputs from a source-level
reference written here, independently of wavelab.

In the spirit of the Vulkan CTS reconvergence tests (dEQP-VK.reconvergence.*):
each program is a random nest of if/else, for and do-while loops with break
and continue, switch, function calls with early return, and early return from
main.  Every invocation keeps a counter n of the steps it has recorded and,
at each step, stores (step id, subgroupBallot(true)) into record n of its own
slot of the output buffers (`slots` records, as many as the reference needs;
a lane recording more overwrites its last slot, and its final count, stored
too, shows the excess).  Branch conditions, trip counts
and switch selectors come from a per-lane input word filled by the case's
`random` fill, so the programs diverge.

The reference (class Wave below) runs the program on sets of lanes, the way
the source reads under SPIR-V structured control flow with maximal
reconvergence (SPV_KHR_maximal_reconvergence):

* the lanes active at a statement are exactly those that reach it in this
  dynamic instance of the enclosing constructs;
* lanes reconverge at the end of an if/else, of a switch, of a loop (lanes
  that leave early wait there for the rest), and after a call;
* lanes in a loop run one iteration at a time together: iteration k of the
  body runs with the lanes in their k-th iteration; a lane that continues
  waits for the others at the continue construct;
* a lane that returns from a function waits after the call; a lane that
  returns from main is off for the rest of the invocation.

Which of these ballots have a spec-defined value without maximal
reconvergence is in docs/reconvergence.md: only those in subgroup-uniform
control flow (the reference marks them).

Lanes are identified by (gl_SubgroupID, gl_SubgroupInvocationID): the kernel
indexes its input and output by gl_SubgroupID * gl_SubgroupSize +
gl_SubgroupInvocationID, so the expectations hold for any assignment of
local invocations to subgroups; the ballot is relative to the subgroup, so
one case file per wave size (`subgroup_size`) holds that size's expectation.

Output layout: record r of lane L is element L * slots + r of binding 1 (u32,
the step id; ids start at 1, 0 = no record) and of binding 2 (uvec4, the
ballot's four words).  Binding 3 (u32): lane L's final record count.

Usage:
  tools/reconverge.py --seed N [--count K] --out DIR [--waves 4,8,16,32,64] [--hlsl]
      writes rc_<seed>.comp and rc_<seed>_w<W>.json for seeds N .. N+K-1
      (with --hlsl also the HLSL twins rc_<seed>.hlsl, rc_<seed>_hlsl_w<W>.json)
  tools/reconverge.py --seed N --print [--wave W] [--hlsl]
      prints program N's kernel and, with --wave, its expected records
      (id:ballot in hex per step; * marks a ballot outside subgroup-uniform
      control flow)
  tools/reconverge.py --self-test
      checks the reference against hand-computed ballots
  tools/reconverge.py --diagnose CASE DUMP.json
      compares a `wavelab run --dump` of a generated case with the reference,
      record by record, and says which differing ballots are spec-defined

Python 3 standard library only.  Program N is the same on every run and
every machine (random.Random(N) and the case format's splitmix64 fill).
"""

import argparse
import json
import os
import random
import sys

MASK32 = (1 << 32) - 1
MASK64 = (1 << 64) - 1

# The wave sizes of the CI run; wave 128 joins this list when the simulator
# supports it.
DEFAULT_WAVES = (4, 8, 16, 32, 64, 128)
ALL_WAVES = (4, 8, 16, 32, 64, 128)  # the sizes a program's record slots are sized for
MAX_SLOTS = 48  # upper bound on records per lane (programs needing more are regenerated)


# --------------------------------------------------------------------------
# input data: the case format's `random` fill (docs/case-format.md)


def splitmix64(seed, count):
    state = seed & MASK64
    out = []
    for _ in range(count):
        state = (state + 0x9E3779B97F4A7C15) & MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        out.append(z ^ (z >> 31))
    return out


def lane_data(seed, count):
    """u32 elements of {"random": {"seed": seed, "min": 0, "max": 2^32-1}}."""
    return [x % (1 << 32) for x in splitmix64(seed, count)]


# --------------------------------------------------------------------------
# the program: a tree of statements (tuples), generated from a seed
#
#   ("ballot", id)
#   ("if", cond, then_block, else_block or None)
#   ("for", var, count, body)          for (var = 0; var < count; var++)
#   ("do", var, count, body)           var = 0; do { body } while (++var < count)
#   ("inf", var, count, id, body)      for (var = 0;; var++) { if (var >= count) { ballot id; break; } body }
#   ("switch", sel, [(labels, body), ...], default_body or None)
#   ("call", fn_index)
#   ("break",) ("continue",) ("return",)
#
# Expressions (cond, count, sel) are tuples too, evaluated per lane by
# eval_expr and printed by glsl_expr:
#   ("bit", s, var)       ((d >> ((s + var) & 31)) & 1) != 0      var may be None
#   ("low2", s, k, var)   ((d >> ((s + var) & 31)) & 3) == k
#   ("lane", m, k)        (gl_SubgroupInvocationID & m) == k
#   ("elect",)            subgroupElect(): the lowest active lane    depends on the active set
#   ("any", s)            subgroupAny(((d >> s) & 1) != 0)          same for every active lane
#   ("iter", var, k)      var == k                                  uniform in its loop
#   ("cnt", s, lo)        lo + ((d >> s) & 3)                       a per-lane trip count 0..3 (lo = 0) or 1..4
#   ("const", k)          k
#   ("sel", s, var)       ((d >> s) + var) & 3                      a switch selector 0..3


class Generator:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.next_id = 1
        self.next_var = 0
        self.functions = []  # bodies of f0, f1, ...
        self.budget = self.rng.randint(14, 34)  # statements left to place

    def new_id(self):
        i = self.next_id
        self.next_id += 1
        return i

    def new_var(self):
        v = "i%d" % self.next_var
        self.next_var += 1
        return v

    def cond(self, loops):
        r = self.rng.random()
        names = loop_vars(loops)
        var = self.rng.choice(names) if names and self.rng.random() < 0.5 else None
        if names and r < 0.12:
            return ("iter", self.rng.choice(names), self.rng.randint(0, 2))
        if r < 0.50:
            return ("bit", self.rng.randint(0, 31), var)
        if r < 0.75:
            return ("low2", self.rng.randint(0, 30), self.rng.randint(0, 3), var)
        if r < 0.85:
            return ("lane", self.rng.choice((1, 3, 7)), self.rng.randint(0, 1))
        # conditions computed by wave operations: which way a lane goes depends on
        # which lanes are active with it, so a wrong active set changes the path
        if r < 0.93:
            return ("elect",)
        return ("any", self.rng.randint(0, 31))

    def block(self, depth, loops, breakable, in_function, first_ballot=0.8):
        """A list of statements. loops: loop variables in scope; breakable: innermost
        breakable construct ('loop', 'switch' or None)."""
        out = []
        if self.rng.random() < first_ballot:
            out.append(("ballot", self.new_id()))
        n = self.rng.randint(1, 3)
        for _ in range(n):
            if self.budget <= 0:
                break
            self.budget -= 1
            out.append(self.statement(depth, loops, breakable, in_function))
            if self.rng.random() < 0.6:
                out.append(("ballot", self.new_id()))
        # an exit, always last in its block so no code is unreachable
        if depth > 0 and self.rng.random() < 0.3:
            exits = []
            if breakable:
                exits.append(("break",))
            if "loop" in loops_kinds(loops):
                exits.append(("continue",))
            exits.append(("return",))
            out.append(self.rng.choice(exits))
        return out

    def statement(self, depth, loops, breakable, in_function):
        r = self.rng.random()
        if depth >= 4 or r < 0.10:
            return ("ballot", self.new_id())
        if r < 0.45:
            c = self.cond(loops)
            t = self.block(depth + 1, loops, breakable, in_function)
            e = self.block(depth + 1, loops, breakable, in_function) if self.rng.random() < 0.5 else None
            return ("if", c, t, e)
        if r < 0.72 and len(loops) < 2:
            kind = self.rng.choice(("for", "for", "do", "inf"))
            var = self.new_var()
            count = ("cnt", self.rng.randint(0, 29), 1 if kind == "do" else 0) if self.rng.random() < 0.6 \
                else ("const", self.rng.randint(1, 3))
            inner = loops + [("loop", var)]
            if kind == "inf":
                # the break branch holds a ballot: the shape of issue 8's item 1
                bid = self.new_id()
                body = self.block(depth + 1, inner, "loop", in_function)
                return ("inf", var, count, bid, body)
            body = self.block(depth + 1, inner, "loop", in_function)
            return (kind, var, count, body)
        if r < 0.87:
            var = self.rng.choice(loop_vars(loops)) if loops and self.rng.random() < 0.4 else None
            sel = ("sel", self.rng.randint(0, 29), var)
            labels = [0, 1, 2, 3]
            self.rng.shuffle(labels)
            ncases = self.rng.randint(1, 3)
            cuts = sorted(self.rng.sample(range(1, 4), ncases - 1)) if ncases > 1 else []
            groups, prev = [], 0
            for c in cuts + [4]:
                groups.append(sorted(labels[prev:c]))
                prev = c
            has_default = self.rng.random() < 0.5
            if has_default:
                groups = groups[:-1] if len(groups) > 1 else groups
            cases = [(g, self.block(depth + 1, loops, "switch", in_function)) for g in groups]
            default = self.block(depth + 1, loops, "switch", in_function) if has_default else None
            return ("switch", sel, cases, default)
        if not in_function and len(self.functions) < 3:
            index = len(self.functions)
            self.functions.append(None)
            self.functions[index] = self.block(1, [], None, True, first_ballot=0.9)
            return ("call", index)
        return ("ballot", self.new_id())

    def program(self):
        main = [("ballot", self.new_id())]
        while self.budget > 0:
            self.budget -= 1
            main.append(self.statement(0, [], None, False))
            if self.rng.random() < 0.6:
                main.append(("ballot", self.new_id()))
        if self.rng.random() < 0.4:
            # an early return from main, then more work for the lanes left
            main.insert(len(main) // 2, ("if", self.cond([]), [("ballot", self.new_id()), ("return",)], None))
        main.append(("ballot", self.new_id()))
        return {"main": main, "functions": self.functions}


def loops_kinds(loops):
    return [k for k, _ in loops]


def loop_vars(loops):
    return [v for _, v in loops]


def generate(seed):
    """Program `seed`: its statements and its workgroup size."""
    g = Generator(seed)
    prog = g.program()
    prog["local_size"] = g.rng.choice((32, 64, 96, 128, 128))
    prog["seed"] = seed
    return prog


# --------------------------------------------------------------------------
# the reference: one wave, lanes as bits of an integer


class Wave:
    """Runs a program on one wave of `size` lanes (the first `count` exist)."""

    def __init__(self, prog, data, wave, first, count):
        self.prog = prog
        self.data = data  # u32 input per workgroup lane
        self.wave = wave
        self.first = first  # workgroup index of lane 0
        self.count = count
        self.records = [[] for _ in range(count)]  # per lane: (id, ballot, uniform)
        self.full = (1 << count) - 1
        self.divergent_return = False  # some lanes returned while others went on
        self.break_block_quirk = False  # see OPTIMIZER_BREAK_BLOCK_QUIRK

    def lanes(self, mask):
        lane = 0
        while mask:
            if mask & 1:
                yield lane
            mask >>= 1
            lane += 1

    def eval_expr(self, e, lane, env):
        d = self.data[self.first + lane]
        k = e[0]
        if k == "bit":
            s = (e[1] + (env[e[2]] if e[2] else 0)) & 31
            return ((d >> s) & 1) != 0
        if k == "low2":
            s = (e[1] + (env[e[3]] if e[3] else 0)) & 31
            return ((d >> s) & 3) == e[2]
        if k == "lane":
            return (lane & e[1]) == e[2]
        if k == "iter":
            return env[e[1]] == e[2]
        if k == "cnt":
            return e[2] + ((d >> e[1]) & 3)
        if k == "const":
            return e[1]
        if k == "sel":
            return (((d >> e[1]) & MASK32) + (env[e[2]] if e[2] else 0)) & 3
        raise ValueError(k)

    def split(self, e, mask, env):
        if e[0] == "elect":
            return mask & -mask  # the lowest active lane
        if e[0] == "any":
            d = self.data
            return mask if any((d[self.first + lane] >> e[1]) & 1 for lane in self.lanes(mask)) else 0
        yes = 0
        for lane in self.lanes(mask):
            if self.eval_expr(e, lane, env):
                yes |= 1 << lane
        return yes

    def ballot(self, sid, mask, uni):
        # subgroup-uniform control flow, conservatively: every lane of the wave is
        # here, no enclosing construct has split them, and no lane has left a
        # construct other than through its merge by an early return
        # (SPV_KHR_subgroup_uniform_control_flow promises reconvergence only when
        # all lanes entered uniformly and all leave through the merge)
        uniform = uni and mask == self.full and not self.divergent_return
        for lane in self.lanes(mask):
            self.records[lane].append((sid, mask, uniform))

    def run_block(self, stmts, mask, env, uni):
        """Runs stmts with the lanes of mask; returns the exits as a dict of masks:
        'next' (fell through), 'break', 'continue', 'return'."""
        out = {"next": 0, "break": 0, "continue": 0, "return": 0}
        for s in stmts:
            if not mask:
                break
            r = self.run_stmt(s, mask, env, uni)
            for k in ("break", "continue", "return"):
                out[k] |= r[k]
            mask = r["next"]
        out["next"] = mask
        return out

    def run_stmt(self, s, mask, env, uni):
        none = {"next": 0, "break": 0, "continue": 0, "return": 0}
        k = s[0]
        if k == "ballot":
            self.ballot(s[1], mask, uni)
            return dict(none, next=mask)
        if k in ("break", "continue", "return"):
            if k == "return" and not uni:
                self.divergent_return = True
            return dict(none, **{k: mask})
        if k == "if":
            yes = self.split(s[1], mask, env)
            out = dict(none)
            for part, body in ((yes, s[2]), (mask & ~yes, s[3])):
                if not part:
                    continue
                if body is None:
                    out["next"] |= part
                    continue
                r = self.run_block(body, part, env, uni and part == mask)
                for key in out:
                    out[key] |= r[key]
            return out
        if k in ("for", "do", "inf"):
            var, count = s[1], s[2]
            body = s[4] if k == "inf" else s[3]
            counts = {lane: self.eval_expr(count, lane, env) for lane in self.lanes(mask)}
            inner = dict(env)
            i = 0
            exit_iterations = set()  # of an "inf" loop's guard
            left = 0  # lanes that have left the loop
            returned = 0
            active = mask
            while active:
                inner[var] = i
                if k == "for":
                    stay = sum(1 << lane for lane in self.lanes(active) if i < counts[lane])
                    left |= active & ~stay
                    active = stay
                elif k == "inf":
                    out_now = sum(1 << lane for lane in self.lanes(active) if i >= counts[lane])
                    if out_now:
                        self.ballot(s[3], out_now, uni and out_now == mask)
                        exit_iterations.add(i)
                    left |= out_now
                    active &= ~out_now
                if not active:
                    break
                r = self.run_block(body, active, inner, uni and active == mask)
                left |= r["break"]
                returned |= r["return"]
                active = r["next"] | r["continue"]
                i += 1
                if k == "do":
                    stay = sum(1 << lane for lane in self.lanes(active) if i < counts[lane])
                    left |= active & ~stay
                    active = stay
            if len(exit_iterations) > 1 and not leaves_loop(body):
                self.break_block_quirk = True
            return dict(none, next=left, **{"return": returned})
        if k == "switch":
            sel = {lane: self.eval_expr(s[1], lane, env) for lane in self.lanes(mask)}
            out = dict(none)
            labelled = set()
            arms = []
            for labels, body in s[2]:
                labelled.update(labels)
                arms.append((sum(1 << lane for lane in self.lanes(mask) if sel[lane] in labels), body))
            rest = sum(1 << lane for lane in self.lanes(mask) if sel[lane] not in labelled)
            if s[3] is not None:
                arms.append((rest, s[3]))
            else:
                out["next"] |= rest
            for part, body in arms:
                if not part:
                    continue
                r = self.run_block(body, part, env, uni and part == mask)
                out["next"] |= r["next"] | r["break"]  # a break leaves the switch
                out["continue"] |= r["continue"]
                out["return"] |= r["return"]
            return out
        if k == "call":
            r = self.run_block(self.prog["functions"][s[1]], mask, {}, uni)
            return dict(none, next=r["next"] | r["return"])
        raise ValueError(k)

    def run(self):
        r = self.run_block(self.prog["main"], self.full, {}, True)
        assert not r["break"] and not r["continue"]
        return self.records


def leaves_loop(stmts, nested=False):
    """Whether stmts, a loop's body, can leave the loop other than through its guard:
    a break out of this loop, or a return at any depth (glslang's merge-return pass
    turns a return inside a loop into a break out of every loop around it)."""
    for s in stmts:
        k = s[0]
        if k == "return" or (k == "break" and not nested):
            return True
        if k == "if" and (leaves_loop(s[2], nested) or (s[3] is not None and leaves_loop(s[3], nested))):
            return True
        # a break inside a nested loop or switch leaves that construct only
        if k in ("for", "do") and leaves_loop(s[3], True):
            return True
        if k == "inf" and leaves_loop(s[4], True):
            return True
        if k == "switch" and any(leaves_loop(b, True) for b in [b for _, b in s[2]] + [s[3] or []]):
            return True
    return False


def reference(prog, wave):
    """Per workgroup lane, the list of (step id, ballot, uniform) it records at this wave
    size; and whether OPTIMIZER_BREAK_BLOCK_QUIRK shows in the records."""
    memo = prog.setdefault("reference", {})
    if wave in memo:
        return memo[wave]
    size = prog["local_size"]
    data = lane_data(prog["seed"], size)
    records = []
    quirk = False
    for first in range(0, size, wave):
        w = Wave(prog, data, wave, first, min(wave, size - first))
        records.extend(w.run())
        quirk |= w.break_block_quirk
    memo[wave] = (records, quirk)
    return records, quirk


def slots_needed(prog, waves):
    return max(len(r) for w in waves for r in reference(prog, w)[0])


# --------------------------------------------------------------------------
# GLSL


def glsl_expr(e):
    k = e[0]

    def shift(s, var):
        return "((%du + %s) & 31u)" % (s, var) if var else "%du" % s

    if k == "bit":
        return "((d >> %s) & 1u) != 0u" % shift(e[1], e[2])
    if k == "low2":
        return "((d >> %s) & 3u) == %du" % (shift(e[1], e[3]), e[2])
    if k == "lane":
        return "(gl_SubgroupInvocationID & %du) == %du" % (e[1], e[2])
    if k == "elect":
        return "subgroupElect()"
    if k == "any":
        return "subgroupAny(((d >> %du) & 1u) != 0u)" % e[1]
    if k == "iter":
        return "%s == %du" % (e[1], e[2])
    if k == "cnt":
        return "%du + ((d >> %du) & 3u)" % (e[2], e[1]) if e[2] else "((d >> %du) & 3u)" % e[1]
    if k == "const":
        return "%du" % e[1]
    if k == "sel":
        return "((d >> %du) + %s) & 3u" % (e[1], e[2]) if e[2] else "(d >> %du) & 3u" % e[1]
    raise ValueError(k)


def glsl_block(stmts, ind, out):
    pad = "    " * ind
    for s in stmts:
        k = s[0]
        if k == "ballot":
            out.append("%sRECORD(%du);" % (pad, s[1]))
        elif k in ("break", "continue", "return"):
            out.append("%s%s;" % (pad, k))
        elif k == "if":
            out.append("%sif (%s) {" % (pad, glsl_expr(s[1])))
            glsl_block(s[2], ind + 1, out)
            if s[3] is not None:
                out.append("%s} else {" % pad)
                glsl_block(s[3], ind + 1, out)
            out.append("%s}" % pad)
        elif k == "for":
            out.append("%sfor (uint %s = 0u; %s < %s; %s++) {" % (pad, s[1], s[1], glsl_expr(s[2]), s[1]))
            glsl_block(s[3], ind + 1, out)
            out.append("%s}" % pad)
        elif k == "do":
            out.append("%s{" % pad)
            out.append("%s    uint %s = 0u;" % (pad, s[1]))
            out.append("%s    do {" % pad)
            glsl_block(s[3], ind + 2, out)
            out.append("%s    } while (++%s < %s);" % (pad, s[1], glsl_expr(s[2])))
            out.append("%s}" % pad)
        elif k == "inf":
            out.append("%sfor (uint %s = 0u;; %s++) {" % (pad, s[1], s[1]))
            out.append("%s    if (%s >= %s) {" % (pad, s[1], glsl_expr(s[2])))
            out.append("%s        RECORD(%du);" % (pad, s[3]))
            out.append("%s        break;" % pad)
            out.append("%s    }" % pad)
            glsl_block(s[4], ind + 1, out)
            out.append("%s}" % pad)
        elif k == "switch":
            out.append("%sswitch (%s) {" % (pad, glsl_expr(s[1])))
            arms = [(["case %du:" % v for v in labels], body) for labels, body in s[2]]
            if s[3] is not None:
                arms.append((["default:"], s[3]))
            for labels, body in arms:
                out.append("%s%s {" % (pad, " ".join(labels)))
                glsl_block(body, ind + 1, out)
                if not body or body[-1][0] not in ("break", "continue", "return"):
                    out.append("%s    break;" % pad)
                out.append("%s}" % pad)
            out.append("%s}" % pad)
        elif k == "call":
            out.append("%sf%d(d, lane, n);" % (pad, s[1]))
        else:
            raise ValueError(k)


def glsl_kernel(prog, slots):
    lines = [
        "#version 450",
        "// Generated by tools/reconverge.py --seed %d: a random structured program that" % prog["seed"],
        "// records (step id, subgroupBallot(true)) at every step.  Expectations come from",
        "// the generator's source-level reference (maximal reconvergence semantics).",
        "#extension GL_KHR_shader_subgroup_basic : require",
        "#extension GL_KHR_shader_subgroup_ballot : require",
        "#extension GL_KHR_shader_subgroup_vote : require",
        "",
        "layout(local_size_x = %d) in;" % prog["local_size"],
        "layout(set = 0, binding = 0, std430) readonly buffer In { uint inputs[]; };",
        "layout(set = 0, binding = 1, std430) buffer Steps { uint steps[]; };",
        "layout(set = 0, binding = 2, std430) buffer Ballots { uvec4 ballots[]; };",
        "layout(set = 0, binding = 3, std430) buffer Counts { uint counts[]; };",
        "",
        "#define SLOTS %du" % slots,
        "// One step: the ballot of the lanes here, stored in this lane's next record.",
        "// Branch-free, so that the step stays one basic block with the code around it",
        "// (a break after it makes a break block holding a wave operation).  SLOTS is",
        "// what the reference needs; a lane that records more keeps overwriting its last",
        "// slot, and its count shows the excess.",
        "#define RECORD(ID) { \\",
        "    uvec4 b_ = subgroupBallot(true); \\",
        "    uint o_ = lane * SLOTS + min(n, SLOTS - 1u); \\",
        "    steps[o_] = ID; ballots[o_] = b_; n++; counts[lane] = n; }",
        "",
    ]
    for i, body in enumerate(prog["functions"]):
        lines.append("void f%d(uint d, uint lane, inout uint n)" % i)
        lines.append("{")
        glsl_block(body, 1, lines)
        lines.append("}")
        lines.append("")
    lines.append("void main()")
    lines.append("{")
    lines.append("    // lanes are named by subgroup and lane, whatever the invocation-to-subgroup layout")
    lines.append("    uint lane = gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;")
    lines.append("    uint d = inputs[lane];")
    lines.append("    uint n = 0u;")
    glsl_block(prog["main"], 1, lines)
    lines.append("}")
    return "\n".join(lines) + "\n"


def hlsl_kernel(prog, slots):
    """The HLSL twin: the same statements (the expressions are valid HLSL as
    printed), WaveActiveBallot for subgroupBallot, and no && || ?: anywhere, so
    glslang's HLSL (which evaluates both sides of those) means the same as DXC."""
    lines = [
        "// Generated by tools/reconverge.py --seed %d --hlsl: the HLSL twin of rc_%d.comp." % (prog["seed"], prog["seed"]),
        "// HLSL has no subgroup index: lanes are named by SV_GroupIndex, assuming waves hold",
        "// consecutive invocations (as wavelab and lavapipe lay them out).",
        "[[vk::binding(0, 0)]] StructuredBuffer<uint> inputs;",
        "[[vk::binding(1, 0)]] RWStructuredBuffer<uint> steps;",
        "[[vk::binding(2, 0)]] RWStructuredBuffer<uint4> ballots;",
        "[[vk::binding(3, 0)]] RWStructuredBuffer<uint> counts;",
        "",
        "#define SLOTS %du" % slots,
        "#define RECORD(ID) { \\",
        "    uint4 b_ = WaveActiveBallot(true); \\",
        "    uint o_ = lane * SLOTS + min(n, SLOTS - 1u); \\",
        "    steps[o_] = ID; ballots[o_] = b_; n++; counts[lane] = n; }",
        "",
    ]
    body = []
    for i, fn in enumerate(prog["functions"]):
        body.append("void f%d(uint d, uint lane, inout uint n)" % i)
        body.append("{")
        glsl_block(fn, 1, body)
        body.append("}")
        body.append("")
    body.append("[numthreads(%d, 1, 1)]" % prog["local_size"])
    body.append("void CSMain(uint group_index : SV_GroupIndex)")
    body.append("{")
    body.append("    uint lane = group_index;")
    body.append("    uint d = inputs[lane];")
    body.append("    uint n = 0u;")
    glsl_block(prog["main"], 1, body)
    body.append("}")
    text = "\n".join(lines + body) + "\n"
    for glsl, hlsl in (("gl_SubgroupInvocationID", "WaveGetLaneIndex()"), ("subgroupElect()", "WaveIsFirstLane()"),
                       ("subgroupAny(", "WaveActiveAnyTrue(")):
        text = text.replace(glsl, hlsl)
    return text


# --------------------------------------------------------------------------
# case files


def expected_steps(records, slots):
    """Binding 1: the step ids, slots per lane, 0 where a lane recorded less."""
    out = []
    for lane_records in records:
        out += [sid for sid, _, _ in lane_records[:slots]] + [0] * (slots - len(lane_records))
    return out


def expected_ballots(records, slots):
    """Binding 2: each record's ballot as four u32 words, low bits first (uvec4 x..w)."""
    out = []
    for lane_records in records:
        for sid, mask, _ in lane_records[:slots]:
            out += [(mask >> (32 * k)) & MASK32 for k in range(4)]
        out += [0, 0, 0, 0] * (slots - len(lane_records))
    return out


def case_json(prog, slots, wave, kernel_name, known_failure=None):
    size = prog["local_size"]
    records, quirk = reference(prog, wave)
    if quirk and OPTIMIZER_BREAK_BLOCK_QUIRK and not known_failure:
        known_failure = BREAK_BLOCK_REASON
    case = {
        "description": "reconvergence program %d at wave %d (tools/reconverge.py --seed %d --count 1)"
        % (prog["seed"], wave, prog["seed"]),
        "kernel": kernel_name,
        "subgroup_size": wave,
        "bindings": [
            {"binding": 0, "type": "u32", "count": size,
             "fill": {"random": {"seed": prog["seed"], "min": 0, "max": MASK32}}},
            {"binding": 1, "type": "u32", "count": size * slots, "fill": {"value": 0}},
            {"binding": 2, "type": "u32", "count": size * slots * 4, "fill": {"value": 0}},
            {"binding": 3, "type": "u32", "count": size, "fill": {"value": 0}},
        ],
        "expect": [
            {"binding": 1, "data": expected_steps(records, slots)},
            {"binding": 2, "data": expected_ballots(records, slots)},
            {"binding": 3, "data": [len(r) for r in records]},
        ],
    }
    if known_failure:
        case["known_failure"] = known_failure
    return case


def program_for(seed):
    """Program `seed` and the records per lane it needs (at every wave size, so the
    program does not depend on which sizes are run)."""
    prog = generate(seed)
    slots = slots_needed(prog, ALL_WAVES)
    retry = 0
    while slots > MAX_SLOTS:  # too many records per lane: a smaller program, same data
        retry += 1
        prog = generate((seed << 8) + retry)
        prog["seed"] = seed
        slots = slots_needed(prog, ALL_WAVES)
    return prog, max(slots, 1)


def write_program(seed, out_dir, waves, hlsl=False):
    """rc_SEED.comp and rc_SEED_wW.json per wave size; with hlsl, also rc_SEED.hlsl
    and rc_SEED_hlsl_wW.json."""
    prog, slots = program_for(seed)
    variants = [("rc_%d.comp" % seed, glsl_kernel, None, "rc_%d_w%d.json")]
    if hlsl:
        variants.append(("rc_%d.hlsl" % seed, hlsl_kernel, "CSMain", "rc_%d_hlsl_w%d.json"))
    for kernel, emit, entry, case_name in variants:
        with open(os.path.join(out_dir, kernel), "w") as f:
            f.write(emit(prog, slots))
        for w in waves:
            case = case_json(prog, slots, w, kernel, KNOWN_FAILURES.get(seed))
            if entry:
                case["entry"] = entry
            with open(os.path.join(out_dir, case_name % (seed, w)), "w") as f:
                json.dump(case, f, separators=(",", ":"))
                f.write("\n")
    return prog, slots


# Programs whose expectations are known not to hold on wavelab today, with the
# reason: `wavelab test` reports them as XFAIL (and as XPASS, a failure, once
# they pass, so an entry cannot outlive its cause).
KNOWN_FAILURES = {
}

# glslang's size optimizer, which wavelab once ran on every kernel, has a
# merge-blocks pass (SPIRV-Tools 2023.1) that melds a loop's only break block
# into the loop's merge block: a ballot in the break branch of
# `for (;;) { if (c) { ballot; break; } }` then runs after the loop, with every
# lane that left it, in whichever iteration.  The reference knows exactly when
# that shows: a loop whose only exit is its guard's break, left by the lanes of
# one wave in more than one iteration.  wavelab now runs the kernel as written
# (no optimizer), so this is False; `wavelab test --optimize=size` on such
# programs shows the difference the rule describes.
OPTIMIZER_BREAK_BLOCK_QUIRK = False
BREAK_BLOCK_REASON = ("glslang's size optimizer (spirv-opt merge-blocks) moves the ballot of a loop's only "
                      "break block past the loop's merge, where lanes leaving in different iterations have "
                      "reconverged (issue 8, item 1; tools/reconverge.py OPTIMIZER_BREAK_BLOCK_QUIRK)")


# --------------------------------------------------------------------------
# self-test: the reference against ballots worked out by hand


def self_test():
    failures = []

    def check(name, got, want):
        if got != want:
            failures.append("%s: expected %r, got %r" % (name, want, got))

    def ids_and_masks(recs):
        return [(sid, mask) for sid, mask, _ in recs]

    # 4 lanes; input words 0b01, 0b10, 0b11, 0b00
    data = [1, 2, 3, 0]
    # if (bit 0) { B2 } else { B3 }  B4
    prog = {"main": [("ballot", 1), ("if", ("bit", 0, None), [("ballot", 2)], [("ballot", 3)]), ("ballot", 4)],
            "functions": []}
    rec = Wave(prog, data, 4, 0, 4).run()
    check("if/else lane 0", ids_and_masks(rec[0]), [(1, 0xF), (2, 0b0101), (4, 0xF)])
    check("if/else lane 1", ids_and_masks(rec[1]), [(1, 0xF), (3, 0b1010), (4, 0xF)])
    check("if/else uniform", [u for _, _, u in rec[1]], [True, False, True])

    # for (i < (d & 3)) { B1 }  B2: trip counts 1, 2, 3, 0
    prog = {"main": [("for", "i0", ("cnt", 0, 0), [("ballot", 1)]), ("ballot", 2)], "functions": []}
    rec = Wave(prog, data, 4, 0, 4).run()
    check("loop lane 2", ids_and_masks(rec[2]), [(1, 0b0111), (1, 0b0110), (1, 0b0100), (2, 0xF)])
    check("loop lane 3", ids_and_masks(rec[3]), [(2, 0xF)])

    # for (;; i++) { if (i >= (d & 3)) { B1; break; } B2 }: lanes leave one by one
    # and the break branch's ballot holds only the lanes leaving in that iteration
    prog = {"main": [("inf", "i0", ("cnt", 0, 0), 1, [("ballot", 2)]), ("ballot", 3)], "functions": []}
    rec = Wave(prog, data, 4, 0, 4).run()
    check("break branch lane 3", ids_and_masks(rec[3]), [(1, 0b1000), (3, 0xF)])
    check("break branch lane 0", ids_and_masks(rec[0]), [(2, 0b0111), (1, 0b0001), (3, 0xF)])
    check("break branch lane 2", ids_and_masks(rec[2]),
          [(2, 0b0111), (2, 0b0110), (2, 0b0100), (1, 0b0100), (3, 0xF)])

    # early return from main in lanes with bit 1, then a ballot without them
    prog = {"main": [("if", ("bit", 1, None), [("return",)], None), ("ballot", 1)], "functions": []}
    rec = Wave(prog, data, 4, 0, 4).run()
    check("return lane 0", rec[0], [(1, 0b1001, False)])  # not subgroup-uniform: lanes 1, 2 left
    check("return lane 1", rec[1], [])

    # a function with an early return: the lanes meet again after the call
    prog = {"main": [("call", 0), ("ballot", 3)],
            "functions": [[("if", ("bit", 0, None), [("ballot", 1), ("return",)], None), ("ballot", 2)]]}
    rec = Wave(prog, data, 4, 0, 4).run()
    check("call lane 0", ids_and_masks(rec[0]), [(1, 0b0101), (3, 0xF)])
    check("call lane 1", ids_and_masks(rec[1]), [(2, 0b1010), (3, 0xF)])

    # switch on d & 3 with a continue in one case, inside a loop of 2
    prog = {"main": [("for", "i0", ("const", 2),
                      [("switch", ("sel", 0, None), [([1], [("continue",)]), ([2, 3], [("ballot", 1)])], None),
                       ("ballot", 2)])], "functions": []}
    rec = Wave(prog, data, 4, 0, 4).run()
    check("switch lane 1", ids_and_masks(rec[1]), [(1, 0b0110), (2, 0b1110), (1, 0b0110), (2, 0b1110)])
    check("switch lane 0", rec[0], [])

    # conditions made of wave operations: elect takes the lowest lane of those in the
    # else branch (lanes 1, 3); any() is true for lanes 0, 2 (lane 0 has bit 0)
    prog = {"main": [("if", ("bit", 0, None),
                      [("if", ("any", 1), [("ballot", 1)], [("ballot", 2)])],
                      [("if", ("elect",), [("ballot", 3)], [("ballot", 4)])])], "functions": []}
    rec = Wave(prog, data, 4, 0, 4).run()
    check("any lane 0", ids_and_masks(rec[0]), [(1, 0b0101)])  # lane 2 (input 3) has bit 1
    check("elect lane 1", ids_and_masks(rec[1]), [(3, 0b0010)])
    check("elect lane 3", ids_and_masks(rec[3]), [(4, 0b1000)])

    # a partial wave: 3 lanes of a wave of 4, and uvec4 words at wave 128
    prog = {"main": [("ballot", 1)], "functions": []}
    check("partial wave", ids_and_masks(Wave(prog, data, 4, 0, 3).run()[0]), [(1, 0b0111)])
    wide = Wave(prog, [0] * 128, 128, 0, 128).run()
    check("wave 128 words", expected_ballots(wide[:1], 1), [MASK32, MASK32, MASK32, MASK32])
    check("steps padded", expected_steps([[(3, 1, True)], []], 2), [3, 0, 0, 0])

    # the case format's documented first splitmix64 output for seed 0
    check("splitmix64", splitmix64(0, 1), [0xE220A8397B1DCDAF])
    for f in failures:
        print("self-test: " + f, file=sys.stderr)
    return 1 if failures else 0


# --------------------------------------------------------------------------
# diagnose: a run's records against the reference


def diagnose(case_path, dump_path):
    case = json.load(open(case_path))
    seed = int(case["description"].split("--seed ")[1].split()[0])
    wave = case["subgroup_size"]
    prog, slots = program_for(seed)
    records = reference(prog, wave)[0]
    dump = json.load(open(dump_path))
    got = {b.get("binding"): [int(x) for x in b["data"]] for b in dump["bindings"]}
    if 1 not in got or 2 not in got:
        print("%s: no bindings 1 and 2" % dump_path, file=sys.stderr)
        return 2
    spec, impl = 0, 0
    for lane, lane_records in enumerate(records):
        for r, (sid, mask, uniform) in enumerate(lane_records[:slots]):
            o = lane * slots + r
            gid = got[1][o]
            gmask = sum(got[2][4 * o + k] << (32 * k) for k in range(4))
            if gid == sid and gmask == mask:
                continue
            verdict = "spec-defined (subgroup-uniform control flow)" if uniform else \
                "needs maximal reconvergence"
            if uniform:
                spec += 1
            else:
                impl += 1
            print("lane %d record %d: expected step %d ballot %#x, got step %d ballot %#x: %s"
                  % (lane, r, sid, mask, gid, gmask, verdict))
            break  # the first difference of each lane
    print("%d lanes differ at a spec-defined ballot, %d only where maximal reconvergence decides" % (spec, impl))
    return 1 if spec or impl else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, help="first program")
    ap.add_argument("--count", type=int, default=1, help="number of programs (seeds N .. N+K-1)")
    ap.add_argument("--out", help="directory for the kernels and case files")
    ap.add_argument("--waves", default=",".join(map(str, DEFAULT_WAVES)),
                    help="wave sizes, one case file each (default %(default)s)")
    ap.add_argument("--hlsl", action="store_true", help="also write each program's HLSL twin and its cases")
    ap.add_argument("--optimized", action="store_true",
                    help="mark the cases OPTIMIZER_BREAK_BLOCK_QUIRK describes as known failures, for a run "
                         "through spirv-opt's size passes (wavelab test --optimize=size)")
    ap.add_argument("--print", action="store_true", help="print program SEED's kernel (GLSL; HLSL with --hlsl)")
    ap.add_argument("--wave", type=int, help="with --print: also the expected records at this wave size")
    ap.add_argument("--self-test", action="store_true", help="check the reference against hand-computed ballots")
    ap.add_argument("--diagnose", nargs=2, metavar=("CASE", "DUMP"),
                    help="compare a wavelab --dump of a generated case with the reference")
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    if a.optimized:
        global OPTIMIZER_BREAK_BLOCK_QUIRK
        OPTIMIZER_BREAK_BLOCK_QUIRK = True
    if a.diagnose:
        return diagnose(*a.diagnose)
    if a.seed is None or a.seed < 0:
        ap.error("--seed N (N >= 0) is required")
    try:
        waves = [int(w) for w in a.waves.split(",")]
    except ValueError:
        ap.error("--waves: expected a list like 4,8,16")
    for w in waves:
        if w not in ALL_WAVES:
            ap.error("--waves: %d is not one of %s" % (w, ",".join(map(str, ALL_WAVES))))
    if a.count < 1:
        ap.error("--count: expected at least 1")
    if a.wave is not None and a.wave not in ALL_WAVES:
        ap.error("--wave: %d is not one of %s" % (a.wave, ",".join(map(str, ALL_WAVES))))
    if a.print:
        prog, slots = program_for(a.seed)
        sys.stdout.write((hlsl_kernel if a.hlsl else glsl_kernel)(prog, slots))
        if a.wave:
            for lane, recs in enumerate(reference(prog, a.wave)[0]):
                print("// lane %3d: %s" % (lane, " ".join(
                    "%d:%x%s" % (sid, mask, "" if uniform else "*") for sid, mask, uniform in recs)))
        return 0
    if not a.out:
        ap.error("--out DIR is required (or --print)")
    os.makedirs(a.out, exist_ok=True)
    for seed in range(a.seed, a.seed + a.count):
        write_program(seed, a.out, waves, a.hlsl)
    return 0


if __name__ == "__main__":
    sys.exit(main())
