#!/usr/bin/env python3
"""doccheck: the commands the documentation shows, run, and their output compared.

Usage: tools/doccheck.py [--check | --update | --self-test] [--slow] [--build DIR] [FILE.md ...]

Files: README.md, docs/guide.md, docs/memory.md, docs/lessons/*.md, kernels/README.md and
kernels/*/README.md (or the files named).  Commands run from a scratch
directory that links every top-level entry of the repository, so relative
paths (`build/wavelab`, `kernels/...`) work as at the root and any file a
command writes (`--dump out.json`, `-o report.html`) lands in the scratch
directory.  The SPIR-V cache is a fresh temporary one (XDG_CACHE_HOME).

Three kinds of markup:

1. A checked block: a fenced block whose first line starts with `$ `.  Every
   `$ COMMAND` line is run with `sh -c` (pipes allowed: `| grep`, `| sed -n`
   to show part of an output), stdout and stderr together, and the lines up
   to the next `$ ` line or the end of the block are its expected output.
   A last expected line `[N]` means the command exits with status N (no such
   line: status 0).

       ```
       $ build/wavelab run tests/errors/oob_read.json --quiet
       fault: out_of_bounds: out-of-bounds load of 4 bytes at address 0x4b0 ...
         at pc 4 (line 9, word 470), workgroup (0,0,0) wave 1 lane 5, ...
       [1]
       ```

2. A generated section: the text between `<!-- BEGIN doccheck:NAME -->` and
   `<!-- END doccheck:NAME -->` is what GENERATORS[NAME] (below) writes from
   wavelab's output (`run --dump` JSON, the summary's memory-model lines,
   `disasm`'s header): tables of numbers, never typed by hand.

3. Every other fenced line that starts with `wavelab ` or `build/wavelab `
   is not run, but its command must exist and every `--option` it shows must
   appear in that command's part of `wavelab --help` (or in the notes that
   apply to every command).

Elisions (host-dependent text), the whole set:

   [elided]   in an expected output line matches any text (also none) on
              that line: timings, device names, temporary paths.

Pictures the docs show (PICTURES: an SVG and the command that draws it) are
redrawn and compared byte for byte when no files are named.

Slow work, skipped by --check unless --slow is given (each takes minutes on
two cores; after a change to the memory model or the lowering, regenerate
them with `tools/doccheck.py --update --slow docs/lessons/004_swizzle.md`):
   lesson004-turing  the 1440p gathers on turing_rtx2080 (four runs)
   lesson004-image   the 1440p image gathers on turing_rtx2080 (four runs)
   lesson004-h100    the 1440p image gathers on hopper_h100 (four runs)
Checked blocks that need a Vulkan device report "skipped" when
`build/wavelab devices` lists none; those comparing with ACO (`--against
radv:FAMILY`) report "skipped" when RADV's null devices are absent.

--check (the default) prints a unified diff of every difference and exits 1;
--update rewrites the files in place (keeping `[elided]` lines that still
match).  Exit 2: bad usage or markup (an unterminated block or section, an
unknown generator).  --build DIR runs DIR/wavelab as `build/wavelab` (CTest
passes its own build directory); --self-test checks the rules above on small
documents of plain shell commands.
"""

import argparse
import difflib
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WAVELAB = "build/wavelab"
ELIDED = "[elided]"
EXIT_LINE = re.compile(r"^\[(\d+)\]$")
BEGIN = re.compile(r"^<!-- BEGIN doccheck:([a-z0-9-]+) -->$")
END = "<!-- END doccheck:{} -->"
FENCE = re.compile(r"^(\s*)```")


class Markup(Exception):
    pass


def doc_files():
    files = ["README.md", "docs/guide.md", "docs/memory.md", "docs/registers.md"]
    files += sorted(glob.glob("docs/lessons/*.md", root_dir=ROOT))
    files += ["kernels/README.md"]
    files += sorted(glob.glob("kernels/*/README.md", root_dir=ROOT))
    return files


class Runner:
    """Runs commands in a scratch directory that mirrors the repository root."""

    def __init__(self, build):
        self.dir = tempfile.mkdtemp(prefix="doccheck.")
        for name in os.listdir(ROOT):
            if not name.startswith(".") and name != "build":
                os.symlink(os.path.join(ROOT, name), os.path.join(self.dir, name))
        os.symlink(build, os.path.join(self.dir, "build"))  # `build/wavelab` is the binary under test
        self.env = dict(os.environ, XDG_CACHE_HOME=os.path.join(self.dir, ".cache"), LC_ALL="C")
        self.env.pop("WAVELAB_NO_CACHE", None)
        self._device = None
        self._radv = None
        self._help = None

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def run(self, command):
        p = subprocess.run(["sh", "-c", command], cwd=self.dir, env=self.env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, errors="replace")
        return p.stdout, p.returncode

    def wavelab(self, *args):
        out, rc = self.run(" ".join([WAVELAB] + [sh_quote(a) for a in args]))
        if rc != 0:
            raise RuntimeError("%s %s: exit %d\n%s" % (WAVELAB, " ".join(args), rc, out))
        return out

    def dump(self, case, *args):
        """Statistics of one run as JSON (`run --dump`)."""
        path = os.path.join(self.dir, "doccheck_dump.json")
        self.wavelab("run", case, "--quiet", "--dump", path, *args)
        with open(path) as f:
            return json.load(f)

    def has_radv(self):
        """RADV's null devices (`disasm --against radv:FAMILY`): Mesa's RADV installed, no AMD GPU needed."""
        if self._radv is None:
            out, rc = self.run(WAVELAB + " disasm kernels/000_uniform_load/uniform_load_naive.comp --against radv:navi21")
            self._radv = rc == 0
        return self._radv

    def has_device(self):
        if self._device is None:
            out, rc = self.run(WAVELAB + " devices")
            self._device = rc == 0 and "device 0" in out
        return self._device

    def help_sections(self):
        """`wavelab --help` cut into {command: its text}; "" holds the notes for every command."""
        if self._help is None:
            out, _ = self.run(WAVELAB + " --help")
            sections, cur = {"": ""}, None
            for line in out.splitlines():
                m = re.match(r"^  ([a-z]+)\b", line)
                if m:  # a command may have several entries (disasm, disasm --against)
                    cur = m.group(1)
                    sections[cur] = sections.get(cur, "") + "\n" + line
                elif line.startswith("    ") and cur:
                    sections[cur] += "\n" + line
                else:
                    cur = None
                    sections[""] += "\n" + line
            self._help = sections
        return self._help


def sh_quote(s):
    return s if re.match(r"^[A-Za-z0-9_./:=,+-]+$", s) else "'" + s.replace("'", "'\\''") + "'"


# ------------------------------------------------------------ checked blocks

def line_matches(expected, actual):
    if ELIDED not in expected:
        return expected == actual
    pattern = ".*".join(re.escape(part) for part in expected.split(ELIDED))
    return re.fullmatch(pattern, actual) is not None


def output_matches(expected, actual):
    return len(expected) == len(actual) and all(line_matches(e, a) for e, a in zip(expected, actual))


def merge_elided(expected, actual):
    """The actual lines, with each expected `[elided]` line kept where it still matches one."""
    out = list(actual)
    used = set()
    for e in expected:
        if ELIDED not in e:
            continue
        for i, a in enumerate(actual):
            if i not in used and line_matches(e, a):
                out[i] = e
                used.add(i)
                break
    return out


def needs_device(command):
    """check, devices, probe, profile (unless --backend sim) and --backend vulkan run on a Vulkan device."""
    m = re.search(r"wavelab\s+(\w+)", command)
    cmd = m.group(1) if m else ""
    if cmd == "profile":
        return "--backend sim" not in command
    return cmd in ("check", "devices", "probe") or "--backend vulkan" in command


def check_block(runner, body):
    """body: the lines of a fenced block starting with `$ `.  Returns the lines it should hold."""
    steps, cur = [], None
    for line in body:
        if line.startswith("$ "):
            cur = [line[2:], []]
            steps.append(cur)
        else:
            cur[1].append(line)
    new = []
    for command, expected in steps:
        new.append("$ " + command)
        want_rc = 0
        shown = expected
        if shown and EXIT_LINE.match(shown[-1]):
            want_rc = int(EXIT_LINE.match(shown[-1]).group(1))
            shown = shown[:-1]
        if needs_device(command) and not runner.has_device():
            print("doccheck: skipped (no Vulkan device): %s" % command, file=sys.stderr)
            new += expected
            continue
        if "--against radv:" in command and not runner.has_radv():
            print("doccheck: skipped (no RADV null device): %s" % command, file=sys.stderr)
            new += expected
            continue
        out, rc = runner.run(command)
        actual = out.rstrip("\n").split("\n") if out.strip("\n") else []
        if output_matches(shown, actual) and rc == want_rc:
            new += expected
            continue
        new += merge_elided(shown, actual)
        if rc != 0:
            new.append("[%d]" % rc)
    return new


def check_command_line(runner, line, where, problems):
    """A command shown but not run: the command and each option must exist in `wavelab --help`."""
    words = line.split("#")[0].split()
    if len(words) < 2:
        return
    sections = runner.help_sections()
    cmd = words[1]
    if cmd not in sections or not cmd:
        problems.append("%s: `%s`: wavelab has no command \"%s\"" % (where, line.strip(), cmd))
        return
    for w in words[2:]:
        if not w.startswith("-") or w == "-":
            continue
        opt = w.split("=")[0]
        text = sections[cmd] + "\n" + sections[""]
        if not re.search(r"(?<![\w-])" + re.escape(opt) + r"(?![\w-])", text):
            problems.append("%s: `%s`: \"%s\" is not an option of wavelab %s (wavelab --help)" %
                            (where, line.strip(), opt, cmd))


# ------------------------------------------------------------ generated sections

def by_class(d, name):
    return d["stats"]["instructions"]["by_class"].get(name, 0)


def by_opcode(d, name):
    return d["stats"]["instructions"]["by_opcode"].get(name, 0)


def grouped(n):
    """12345 -> '12 345', as the docs write large counts."""
    return "{:,}".format(n).replace(",", " ")


def memory_lines(r, case, *args):
    """The memory model's summary lines of `wavelab run CASE --machine ...`, by their first word."""
    out = r.wavelab("run", case, *args)
    lines = {}
    for line in out.split("\n"):
        m = re.match(r"^  (lds|global|l1|l2|dram|estimate)\s+(.*)$", line)
        if m:
            lines[m.group(1)] = m.group(2)
    return lines


def field(text, pattern):
    m = re.search(pattern, text)
    if not m:
        raise RuntimeError("doccheck: no /%s/ in \"%s\"" % (pattern, text))
    return m.group(1)


def gen_lesson000_classes(r):
    """Lesson 000: executed instructions by class, the light loads split from the other memory instructions."""
    rows = [("naive, typed buffer", "uniform_load_naive", 32),
            ("naive, read-only SSBO", "uniform_load_naive_ssbo", 32),
            ("wave, typed buffer", "uniform_load_wave", 32),
            ("naive, typed buffer", "uniform_load_naive", 64),
            ("wave, typed buffer", "uniform_load_wave", 64)]
    out = ["| case | wave | vmem | smem | xlane | salu | valu |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    for label, case, wave in rows:
        d = r.dump("kernels/000_uniform_load/%s.json" % case, "--wave", str(wave))
        stores = by_opcode(d, "store")
        vmem, smem = by_class(d, "vmem"), by_class(d, "smem")
        if case.endswith("_ssbo"):
            # every wave's one scalar load of its tile's (start, count) is the rest
            waves = d["stats"]["waves"]
            vmem_t = "%d (stores)" % vmem
            smem_t = "%d = **%d scalar light loads** + %d" % (smem, smem - waves, waves)
        else:
            loads = by_opcode(d, "img_read")
            vmem_t = "%d = **%d light loads** + %d stores" % (vmem, loads, vmem - loads)
            smem_t = str(smem)
        out.append("| %s | %d | %s | %s | %d | %d | %d |" %
                   (label, wave, vmem_t, smem_t, by_class(d, "xlane"), by_class(d, "salu"), by_class(d, "valu")))
    return out


def gen_lesson000_many(r):
    """Lesson 000: 1024 lights per tile, light loads of the naive and the wave kernel at three wave sizes."""
    out = ["| wave | naive: light loads (vmem) | wave version (vmem) | ratio | naive, read-only SSBO: scalar loads |",
           "| --- | ---: | ---: | ---: | ---: |"]
    k = "kernels/000_uniform_load/uniform_load_%s.json"
    for wave in (8, 32, 64):
        w = ("--wave", str(wave))
        naive = by_opcode(r.dump(k % "naive_many", *w), "img_read")
        wave_loads = by_opcode(r.dump(k % "wave_many", *w), "img_read")
        ssbo = by_class(r.dump(k % "naive_many_ssbo", *w), "smem")
        ratio = "%d×" % (naive // wave_loads) if naive % wave_loads == 0 else "%.1f×" % (naive / wave_loads)
        out.append("| %d | %s | %s | %s | %s |" % (wave, grouped(naive), grouped(wave_loads), ratio, grouped(ssbo)))
    return out


def gen_lesson002_lds(r):
    """Lesson 002: LDS instructions, cycles and bank-conflict cycles of the memory model."""
    out = ["| case (6 groups of 8×8) | machine, wave | LDS instructions | LDS cycles | bank-conflict cycles |",
           "| --- | --- | --- | --- | --- |"]
    for machine, wave in (("gcn_vega64", 64), ("rdna2", 32)):
        for case in ("neighborhood_fp32_split", "neighborhood_fp32_interleaved"):
            lds = memory_lines(r, "kernels/002_lds_fp16/%s.json" % case, "--machine", machine,
                               "--wave", str(wave))["lds"]
            out.append("| `%s` | %s, %d | %s | %s | %s |" % (
                case, machine, wave, field(lds, r"^(\d+) instructions"), field(lds, r"(\d+) cycles"),
                field(lds, r"(\d+) bank-conflict cycles")))
    return out


def gen_lesson002_registers(r):
    """Lesson 002: registers and occupancy from `wavelab disasm --machine gcn_vega64 --wave 64`'s header."""
    rows = [("fp32, split arrays", "neighborhood_fp32_split"),
            ("fp16, split arrays", "neighborhood_fp16_split"),
            ("fp32, interleaved", "neighborhood_fp32_interleaved"),
            ("fp16, interleaved", "neighborhood_fp16_interleaved"),
            ("HLSL fp32, split", "neighborhood_hlsl_fp32_split"),
            ("HLSL fp16, split", "neighborhood_hlsl_fp16_split")]
    out = ["| kernel | VGPRs (peak live) | 16-bit unpacked | SGPRs | occupancy on gcn_vega64 by VGPRs (waves/SIMD) |",
           "| --- | --- | --- | --- | --- |"]
    for label, case in rows:
        text = r.wavelab("disasm", "kernels/002_lds_fp16/%s.json" % case, "--machine", "gcn_vega64", "--wave", "64")
        regs = field(text, r"(?m)^; registers: (.*)$")
        occ = field(text, r"(?m)^; occupancy (.*)$")
        by_vgprs, most = int(field(occ, r"by VGPRs (\d+)")), int(field(occ, r"hardware maximum (\d+)"))
        out.append("| %s | %s | %s | %s | %s |" % (
            label, field(regs, r"^peak (\d+) VGPRs"), field(regs, r"\((\d+) with 16-bit values unpacked\)"),
            field(regs, r"(\d+) SGPRs"), by_vgprs if by_vgprs <= most else "%d (capped at %d)" % (by_vgprs, most)))
    return out


def percent(text, pattern):
    return field(text, pattern).replace("%", " %")


def gen_lesson004_turing(r):
    """Lesson 004: the 1440p gathers on the Turing preset (slow: about 30 s a case on two cores)."""
    rows = [("`swizzle_row_major_1440p` (5×5 taps, 8 px apart)", "swizzle_row_major_1440p"),
            ("`swizzle_tiled_1440p`", "swizzle_tiled_1440p"),
            ("`swizzle_row_major_1440p_wide` (taps 128 px apart)", "swizzle_row_major_1440p_wide"),
            ("`swizzle_tiled_1440p_wide`", "swizzle_tiled_1440p_wide")]
    out = ["| case | L1 read hits | L2 read hit rate | DRAM read | estimate (bound; DRAM's share) |",
           "| --- | --- | --- | --- | --- |"]
    for label, case in rows:
        m = memory_lines(r, "kernels/004_swizzle/%s.json" % case, "--machine", "turing_rtx2080")
        est = m["estimate"]
        out.append("| %s | %s | **%s** | %s MB | %s cycles = %s µs (%s; dram at %s) |" % (
            label, percent(m["l1"], r"read hit rate (\S+%)"), percent(m["l2"], r"read hit rate (\S+%)"),
            field(m["dram"], r"^(\S+) MB read"), grouped(int(field(est, r"^(\d+) cycles"))),
            field(est, r"= (\S+) us"), field(est, r"bound by (\w+)"), percent(est, r"dram (\d+%)")))
    return out


def gen_lesson004_image(r):
    """Lesson 004: the image form's 1440p wide gathers, two launch orders x two layouts (slow)."""
    out = ["| launch order (the kernel's) | image layout | L1 read hits | L2 read hit rate | DRAM read | "
           "DRAM share of the bound |",
           "| --- | --- | --- | --- | --- | --- |"]
    for order, kernel in (("row-major", "row_major"), ("tiled (N = 16)", "tiled")):
        for layout, name in (("linear", "linear"), ("block-linear", "nv_blocklinear")):
            m = memory_lines(r, "kernels/004_swizzle/swizzle_image_load_%s_1440p_wide.json" % kernel,
                             "--machine", "turing_rtx2080", "--image-layout", name)
            out.append("| %s | %s | %s | **%s** | %s MB | %s |" % (
                order, layout, percent(m["l1"], r"read hit rate (\S+%)"), percent(m["l2"], r"read hit rate (\S+%)"),
                field(m["dram"], r"^(\S+) MB read"), percent(m["estimate"], r"dram (\d+%)")))
    return out


def gen_machine_fields(r):
    """docs/memory.md: the preset fields' table, as `wavelab machines --fields` prints sim/machine_fields.def."""
    return r.wavelab("machines", "--fields").rstrip("\n").split("\n")


def gen_kernel_counts(r):
    """kernels/README.md: case files per folder, and how many carry an expectation (`wavelab test` runs those)."""
    out = ["| folder | case files | with an `expect` |", "| --- | ---: | ---: |"]
    for d in sorted(glob.glob("kernels/*/", root_dir=ROOT)):
        cases = sorted(glob.glob(d + "*.json", root_dir=ROOT))
        expect = 0
        for c in cases:
            with open(os.path.join(ROOT, c)) as f:
                expect += "expect" in json.load(f)
        out.append("| `%s` | %d | %d |" % (d[len("kernels/"):], len(cases), expect))
    return out


def gen_lesson004_h100(r):
    """Lesson 004: the image form's 1440p gather (default spacing) on hopper_h100, two orders x two layouts (slow)."""
    out = ["| launch order (the kernel's) | image layout | line requests | L1 read hits | L2 read hit rate | "
           "L2 read misses |",
           "| --- | --- | ---: | --- | --- | ---: |"]
    for order, kernel in (("row-major", "row_major"), ("tiled (N = 16)", "tiled")):
        for layout, name in (("linear", "linear"), ("block-linear", "nv_blocklinear")):
            m = memory_lines(r, "kernels/004_swizzle/swizzle_image_load_%s_1440p.json" % kernel,
                             "--machine", "hopper_h100", "--image-layout", name)
            out.append("| %s | %s | %s | %s | **%s** | %s |" % (
                order, layout, grouped(int(field(m["global"], r"(\d+) line requests"))),
                percent(m["l1"], r"read hit rate (\S+%)"), percent(m["l2"], r"read hit rate (\S+%)"),
                grouped(int(field(m["l2"], r"read hit rate \S+ \(\d+ hits, (\d+) misses\)")))))
    return out


def gen_lean_registers(r):
    """docs/registers.md: instructions and registers of every case as lowered and lean (tools/lean_registers.py)."""
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import lean_registers
    return lean_registers.table_lines(os.path.join(r.dir, WAVELAB), ROOT)


# name: (generator, slow)
GENERATORS = {
    "lean-registers": (gen_lean_registers, False),
    "kernel-counts": (gen_kernel_counts, False),
    "machine-fields": (gen_machine_fields, False),
    "lesson000-classes": (gen_lesson000_classes, False),
    "lesson000-many": (gen_lesson000_many, False),
    "lesson002-lds": (gen_lesson002_lds, False),
    "lesson002-registers": (gen_lesson002_registers, False),
    "lesson004-turing": (gen_lesson004_turing, True),
    "lesson004-image": (gen_lesson004_image, True),
    "lesson004-h100": (gen_lesson004_h100, True),
}


# ------------------------------------------------------------ pictures

# Pictures the docs show that wavelab draws: the file, and the command that writes it ({out}: where).  --check
# draws each into the scratch directory and compares the bytes; --update writes it.
PICTURES = {
    "docs/lessons/img_002_fp32_split.svg":
        WAVELAB + " disasm kernels/002_lds_fp16/neighborhood_fp32_split.json --machine gcn_vega64 --wave 64 --svg {out}",
    "docs/lessons/img_002_fp16_split.svg":
        WAVELAB + " disasm kernels/002_lds_fp16/neighborhood_fp16_split.json --machine gcn_vega64 --wave 64 --svg {out}",
}


def process_pictures(runner, update):
    """Redraws PICTURES; the paths of those that differ (rewritten with update)."""
    stale = []
    for path, command in sorted(PICTURES.items()):
        out = os.path.join(runner.dir, "doccheck_picture.svg")
        text, rc = runner.run(command.format(out=out) + " > /dev/null")
        if rc != 0:
            raise RuntimeError("%s: exit %d\n%s" % (command, rc, text))
        with open(out, "rb") as f:
            drawn = f.read()
        with open(os.path.join(ROOT, path), "rb") as f:
            if f.read() == drawn:
                continue
        stale.append(path)
        if update:
            with open(os.path.join(ROOT, path), "wb") as f:
                f.write(drawn)
    return stale


# ------------------------------------------------------------ files

def process(runner, path, problems, slow):
    with open(path if os.path.isabs(path) else os.path.join(ROOT, path)) as f:
        lines = f.read().split("\n")
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        m = BEGIN.match(line)
        if m:
            name = m.group(1)
            end = END.format(name)
            try:
                j = lines.index(end, i + 1)
            except ValueError:
                raise Markup("%s:%d: no %s" % (path, i + 1, end))
            if name not in GENERATORS:
                raise Markup("%s:%d: no generator \"%s\" in tools/doccheck.py" % (path, i + 1, name))
            fn, is_slow = GENERATORS[name]
            out.append(line)
            if is_slow and not slow:
                print("doccheck: skipped (slow, --slow runs it): %s %s" % (path, name), file=sys.stderr)
                out += lines[i + 1:j]
            else:
                out += fn(runner)
            out.append(end)
            i = j + 1
            continue
        fm = FENCE.match(line)
        if fm:
            try:
                j = next(k for k in range(i + 1, len(lines)) if FENCE.match(lines[k]))
            except StopIteration:
                raise Markup("%s:%d: unterminated code block" % (path, i + 1))
            indent = fm.group(1)  # a block inside a list item: its lines carry the fence's indentation
            body = [b[len(indent):] if b.startswith(indent) else b for b in lines[i + 1:j]]
            out.append(line)
            if body and body[0].startswith("$ "):
                out += [indent + b if b else b for b in check_block(runner, body)]
            else:
                k = 0
                while k < len(body):
                    start, s = k, body[k].strip()
                    while s.endswith("\\") and k + 1 < len(body):  # a command continued on the next line
                        k += 1
                        s = s[:-1] + " " + body[k].strip()
                    if s.startswith("wavelab ") or s.startswith(WAVELAB + " "):
                        check_command_line(runner, s, "%s:%d" % (path, i + 2 + start), problems)
                    k += 1
                out += lines[i + 1:j]
            out.append(lines[j])
            i = j + 1
            continue
        out.append(line)
        i += 1
    return lines, out


def self_test(runner):
    """The checker's own rules on small documents whose commands are plain shell (expected values by hand)."""
    cases = [
        # (document, problems expected, document after --update)
        ("```\n$ echo hello\nhello\n```\n", 0, None),
        ("```\n$ echo hello\ngoodbye\n```\n", 0, "```\n$ echo hello\nhello\n```\n"),
        ("```\n$ echo took 12 ms\ntook [elided] ms\n```\n", 0, None),
        ("```\n$ echo took 12 ms; echo b\ntook [elided] ms\na\n```\n", 0,
         "```\n$ echo took 12 ms; echo b\ntook [elided] ms\nb\n```\n"),
        ("```\n$ echo x; exit 3\nx\n[3]\n```\n", 0, None),
        ("```\n$ echo x; exit 3\nx\n```\n", 0, "```\n$ echo x; exit 3\nx\n[3]\n```\n"),
        ("- item\n\n  ```\n  $ echo a\n  b\n  ```\n", 0, "- item\n\n  ```\n  $ echo a\n  a\n  ```\n"),
        ("```\nwavelab run CASE --wave 8 --no-cache\nbuild/wavelab explain CASE --l2 \\\n    --svg x.svg\n```\n", 0, None),
        ("```\nwavelab run CASE --no-such-option\n```\n", 1, None),
        ("```\nwavelab frobnicate CASE\n```\n", 1, None),
    ]
    failures = 0
    for n, (doc, want_problems, want_after) in enumerate(cases):
        path = os.path.join(runner.dir, "selftest.md")
        with open(path, "w") as f:
            f.write(doc)
        problems = []
        old, new = process(runner, path, problems, False)
        after = "\n".join(new)
        want = doc if want_after is None else want_after
        if len(problems) != want_problems or after != want:
            failures += 1
            print("doccheck --self-test: case %d: %d problems (want %d), after update:\n%s" %
                  (n, len(problems), want_problems, after), file=sys.stderr)
    for doc in ("```\n$ echo a\n", "<!-- BEGIN doccheck:no-such-table -->\n<!-- END doccheck:no-such-table -->\n",
                "<!-- BEGIN doccheck:kernel-counts -->\n"):
        with open(path, "w") as f:
            f.write(doc)
        try:
            process(runner, path, [], False)
            failures += 1
            print("doccheck --self-test: no markup error for %r" % doc, file=sys.stderr)
        except Markup:
            pass
    print("doccheck --self-test: %d of %d failed" % (failures, len(cases) + 3))
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description="run the commands the docs show and compare their output")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="compare; print a unified diff, exit 1 (default)")
    mode.add_argument("--update", action="store_true", help="rewrite the shown outputs and tables in place")
    mode.add_argument("--self-test", action="store_true", help="check the checker's own rules, then exit")
    ap.add_argument("--slow", action="store_true", help="also the generators that take minutes")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"),
                    help="the build directory whose wavelab runs as build/wavelab (default: build)")
    ap.add_argument("files", nargs="*", help="Markdown files (default: every checked one)")
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    if not os.access(os.path.join(build, "wavelab"), os.X_OK):
        print("doccheck: %s/wavelab is not built" % build, file=sys.stderr)
        return 2
    files = [os.path.relpath(os.path.abspath(f), ROOT) for f in args.files] or doc_files()
    runner = Runner(build)
    if args.self_test:
        try:
            return self_test(runner)
        finally:
            runner.close()
    failed, problems = False, []
    try:
        for path in files:
            old, new = process(runner, path, problems, args.slow)
            if old == new:
                continue
            if args.update:
                with open(os.path.join(ROOT, path), "w") as f:
                    f.write("\n".join(new))
                print("doccheck: updated %s" % path, file=sys.stderr)
            else:
                failed = True
                sys.stdout.writelines(difflib.unified_diff([l + "\n" for l in old], [l + "\n" for l in new],
                                                           "a/" + path, "b/" + path))
        if not args.files:
            for path in process_pictures(runner, args.update):
                print("doccheck: %s %s" % ("updated" if args.update else "differs from what wavelab draws:", path),
                      file=sys.stderr)
                failed |= not args.update
    except Markup as e:
        print("doccheck: %s" % e, file=sys.stderr)
        return 2
    finally:
        runner.close()
    for p in problems:
        print("doccheck: %s" % p, file=sys.stderr)
    if failed:
        print("doccheck: the docs differ from what the commands print; "
              "`tools/doccheck.py --update` rewrites them", file=sys.stderr)
    return 1 if failed or problems else 0


if __name__ == "__main__":
    sys.exit(main())
