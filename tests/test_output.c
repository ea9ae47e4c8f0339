/*
 * tests/test_output.c — every output tells the truth: the escapers of
 * text/text.h against hand-written expectations, and the files and lines the
 * `wavelab` command writes (SVG, HTML, TAP, error messages) when a path, a
 * pass name or a case value carries markup, quotes or control characters.
 * XML well-formedness is checked with xmllint (Debian's libxml2-utils).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/support/tsup.h"
#include "text/text.h"

/* What a writer wrote, as a malloc'd string (NUL-terminated). */
static char *written(void (*write)(FILE *f, const char *s), const char *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    write(f, s);
    fclose(f);
    return buf;
}

static void xml_text_of(FILE *f, const char *s) { text_xml(f, s, (size_t)-1, 0); }
static void xml_attribute_of(FILE *f, const char *s) { text_xml(f, s, (size_t)-1, 1); }

#define WRITES(writer, in, want)                                                                                  \
    do {                                                                                                          \
        char *got_ = written(writer, in);                                                                         \
        ck_assert_msg(strcmp(got_, want) == 0, "%s: got [%s], want [%s]", #writer, got_, want);                   \
        free(got_);                                                                                               \
    } while (0)

START_TEST(test_output_xml_escapes_markup_and_replaces_control_characters)
{
    WRITES(xml_text_of, "<script>a&b</script>", "&lt;script&gt;a&amp;b&lt;/script&gt;");
    WRITES(xml_text_of, "\"q\" 'a'", "&quot;q&quot; &apos;a&apos;");
    /* XML 1.0 cannot hold U+0001 or ESC even as a reference: U+FFFD; tab and newline stay in text */
    WRITES(xml_text_of, "a\x01" "b\x1b[31m\tc\nd", "a\xEF\xBF\xBD" "b\xEF\xBF\xBD[31m\tc\nd");
    WRITES(xml_attribute_of, "a\tb\nc\"", "a&#9;b&#10;c&quot;");
    /* valid UTF-8 passes; a lone continuation byte, an overlong form and a surrogate do not */
    WRITES(xml_text_of, "\xC3\xA9\xE2\x82\xAC", "\xC3\xA9\xE2\x82\xAC");
    WRITES(xml_text_of, "\x80" "x\xC0\xAF" "y\xED\xA0\x80", "\xEF\xBF\xBD" "x\xEF\xBF\xBD\xEF\xBF\xBD" "y\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
    /* a length that cuts a sequence in two */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    text_xml(f, "a\xC3\xA9", 2, 0);
    fclose(f);
    ck_assert_str_eq(buf, "a\xEF\xBF\xBD");
    free(buf);
}
END_TEST

START_TEST(test_output_json_and_terminal_escape_control_characters)
{
    WRITES(text_json, "a\"b\\c\x01\n", "\"a\\\"b\\\\c\\u0001\\n\"");
    WRITES(text_json, NULL, "\"\"");
    char out[64];
    ck_assert_str_eq(text_terminal("u3\x1b[31m2\nX\x7f", out, sizeof out), "u3\\x1b[31m2\\x0aX\\x7f");
    /* C1 CSI (U+009B) is an escape sequence introducer on some terminals too */
    ck_assert_str_eq(text_terminal("a\xC2\x9B" "b \xC3\xA9", out, sizeof out), "a\\u009bb \xC3\xA9");
    /* truncation never cuts an escape in half */
    ck_assert_str_eq(text_terminal("ab\x1b", out, 6), "ab");
}
END_TEST

/* ------------------------------------------------------------ the command's outputs */

static const char *double_kernel = "#version 450\n"
                                   "layout(local_size_x = 4) in;\n"
                                   "layout(set = 0, binding = 0) buffer B { uint v[]; };\n"
                                   "void main() { v[gl_LocalInvocationIndex] *= 2u; }\n";

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "%s was not written", path);
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    int ch;
    while ((ch = fgetc(f)) != EOF)
        fputc(ch, m);
    fclose(m);
    fclose(f);
    return buf;
}

/* xmllint (libxml2) parses the file as XML; skipped-with-note when it is not installed is not an option here:
 * the JUnit test already needs it. */
static void assert_well_formed(const char *path)
{
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "xmllint --noout '%s' 2>&1", path);
    ck_assert_msg(system(cmd) == 0, "%s is not well-formed XML", path);
}

static int has_byte(const char *s, char byte) { return strchr(s, byte) != NULL; }

/* A directory named like markup holding a case: the path reaches every title. */
static char *markup_case(char **dir_out)
{
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    char sub[4200];
    snprintf(sub, sizeof sub, "%s/<script>alert(1)<\x01>", dir);
    ck_assert_int_eq(mkdir(sub, 0700), 0);
    free(tsup_write_file(sub, "double.comp", double_kernel));
    char *json = tsup_write_file(sub, "c.json",
                                 "{\"dispatches\": [{\"name\": \"p\\u0001<b>&\\\"\", \"kernel\": \"double.comp\"}, "
                                 "{\"kernel\": \"double.comp\"}], \"bindings\": [{\"set\": 0, \"binding\": 0, "
                                 "\"type\": \"u32\", \"data\": [1, 2, 3, 4]}], "
                                 "\"expect\": [{\"set\": 0, \"binding\": 0, \"data\": [4, 8, 12, 16]}]}");
    ck_assert_ptr_nonnull(json);
    *dir_out = dir;
    return json;
}

static void remove_markup_case(char *dir, char *json)
{
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
    free(dir);
    free(json);
}

START_TEST(test_output_disasm_svg_escapes_the_case_path)
{
    char *dir, *json = markup_case(&dir);
    char args[9000], svg[4200];
    snprintf(svg, sizeof svg, "%s/out.svg", dir);
    snprintf(args, sizeof args, "disasm '%s' --svg '%s'", json, svg);
    char *out = NULL;
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out);
    free(out);
    char *text = read_all(svg);
    ck_assert_msg(!strstr(text, "<script>"), "markup from the path reached the SVG:\n%.600s", text);
    ck_assert_msg(strstr(text, "&lt;script&gt;alert(1)&lt;\xEF\xBF\xBD&gt;/c.json"), "%.600s", text);
    ck_assert(!has_byte(text, '\x01'));
    assert_well_formed(svg);
    free(text);
    remove_markup_case(dir, json);
}
END_TEST

START_TEST(test_output_profile_svg_and_trace_escape_pass_names)
{
    char *dir, *json = markup_case(&dir);
    char args[9000], svg[4200], trace[4200];
    snprintf(svg, sizeof svg, "%s/out.svg", dir);
    snprintf(trace, sizeof trace, "%s/out.json", dir);
    snprintf(args, sizeof args, "profile '%s' --backend sim --repeat 2 --svg '%s' --trace '%s'", json, svg, trace);
    char *out = NULL;
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out);
    /* the printed table shows the control character, not the byte */
    ck_assert_msg(!has_byte(out, '\x01') && strstr(out, "p\\x01<b>&\""), "%s", out);
    free(out);
    char *text = read_all(svg);
    ck_assert(!has_byte(text, '\x01'));
    ck_assert_msg(strstr(text, "p\xEF\xBF\xBD&lt;b&gt;&amp;&quot;"), "%.2000s", text);
    assert_well_formed(svg);
    free(text);
    text = read_all(trace);
    ck_assert_msg(strstr(text, "\"p\\u0001<b>&\\\"\""), "%.2000s", text);
    free(text);
    remove_markup_case(dir, json);
}
END_TEST

START_TEST(test_output_report_title_has_no_control_characters)
{
    char *dir, *json = markup_case(&dir);
    char args[9000], html[4200];
    snprintf(html, sizeof html, "%s/out.html", dir);
    snprintf(args, sizeof args, "report '%s' -o '%s'", json, html);
    char *out = NULL;
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out);
    free(out);
    char *text = read_all(html);
    ck_assert(!has_byte(text, '\x01'));
    ck_assert_msg(strstr(text, "<title>wavelab report: ") && !strstr(text, "<script>"), "%.600s", text);
    ck_assert_msg(strstr(text, "&lt;script&gt;alert(1)&lt;\xEF\xBF\xBD&gt;/c.json</title>"), "%.600s", text);
    free(text);
    remove_markup_case(dir, json);
}
END_TEST

START_TEST(test_output_tap_and_junit_show_control_characters_safely)
{
    char *dir, *json = markup_case(&dir);
    char args[9000], junit[4200];
    snprintf(junit, sizeof junit, "%s/junit.xml", dir);
    snprintf(args, sizeof args, "test '%s' --waves 4 --tap --junit '%s'", json, junit);
    char *out = NULL;
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out);
    ck_assert_msg(!has_byte(out, '\x01') && strstr(out, "<script>alert(1)<\\x01>/c.json (wave 4)"), "%s", out);
    free(out);
    assert_well_formed(junit);
    remove_markup_case(dir, json);
}
END_TEST

START_TEST(test_output_case_errors_show_control_characters_on_one_line)
{
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    free(tsup_write_file(dir, "double.comp", double_kernel));
    char *json = tsup_write_file(dir, "c.json",
                                 "{\"kernel\": \"double.comp\", \"bindings\": [{\"set\": 0, \"binding\": 0, "
                                 "\"type\": \"u3\\u001b[31m2\\nX\", \"data\": [1, 2, 3, 4]}]}");
    char args[4400];
    snprintf(args, sizeof args, "run '%s'", json);
    char *out = NULL;
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 2, "exit %d:\n%s", rc, out);
    ck_assert_msg(!has_byte(out, '\x1b') && strstr(out, "unknown type \"u3\\x1b[31m2\\x0aX\""), "%s", out);
    ck_assert_msg(strchr(out, '\n') == out + strlen(out) - 1, "not one line:\n%s", out);
    free(out);
    free(json);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/* An analysis that fails writes no picture: no 0-byte SVG, and a picture already there is left as it was. */
START_TEST(test_output_explain_svg_not_written_when_the_analysis_fails)
{
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    free(tsup_write_file(dir, "double.comp", double_kernel));
    char *json = tsup_write_file(dir, "c.json",
                                 "{\"kernel\": \"double.comp\", \"bindings\": [{\"set\": 0, \"binding\": 0, "
                                 "\"type\": \"u32\", \"data\": [1, 2, 3, 4]}]}");
    char args[9000], svg[4200], *out = NULL;
    snprintf(svg, sizeof svg, "%s/lds.svg", dir);
    snprintf(args, sizeof args, "explain '%s' --lds --svg '%s'", json, svg);
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 2 && strstr(out, "no LDS instruction"), "exit %d:\n%s", rc, out);
    free(out);
    struct stat st;
    ck_assert_msg(stat(svg, &st) != 0, "%s was left behind (%lld bytes)", svg, (long long)st.st_size);
    char *old = tsup_write_file(dir, "lds.svg", "<svg/>\n");
    rc = tsup_run_cli(args, &out);
    ck_assert_int_eq(rc, 2);
    free(out);
    char *text = read_all(svg);
    ck_assert_str_eq(text, "<svg/>\n");
    free(text);
    free(old);
    /* nothing else beside it either (the temporary file is gone) */
    snprintf(args, sizeof args, "ls '%s' | wc -l", dir);
    FILE *ls = popen(args, "r");
    int files = 0;
    ck_assert_int_eq(fscanf(ls, "%d", &files), 1);
    pclose(ls);
    ck_assert_int_eq(files, 3);
    free(json);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/* UTF-8 in a kernel's comments (and in an included header's) comes back unchanged in the SPIR-V's OpSource:
 * glslang 12 packed each byte through a signed char and wrote 0xFF over the bytes after it. */
START_TEST(test_output_compile_disasm_keeps_utf8_source)
{
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    free(tsup_write_file(dir, "hdr.glsl", "// h\xC3\xA9" "ader \xE6\x97\xA5\nuint twice(uint x) { return x * 2u; }\n"));
    char *kernel = tsup_write_file(dir, "k.comp",
                                   "#version 450\n#extension GL_GOOGLE_include_directive : require\n"
                                   "// caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x99\x82 end\n#include \"hdr.glsl\"\n"
                                   "layout(local_size_x = 4) in;\nlayout(set = 0, binding = 0) buffer B { uint v[]; };\n"
                                   "void main() { v[gl_LocalInvocationIndex] = twice(v[gl_LocalInvocationIndex]); }\n");
    char args[4400], *out = NULL;
    snprintf(args, sizeof args, "compile '%s' --disasm", kernel);
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out);
    ck_assert_msg(strstr(out, "// caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x99\x82 end\n"), "%.3000s", out);
    ck_assert_msg(strstr(out, "\"// h\xC3\xA9" "ader \xE6\x97\xA5\n"), "%.3000s", out);
    ck_assert_msg(!strstr(out, "\xFF"), "0xFF bytes in:\n%.3000s", out);
    free(out);
    free(kernel);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/* issue 29: the disasm header labels its two register counts (peak 32-bit registers live at once, and the slots
 * the listing names, whose highest number is read back from the listing itself), names no executor storage as
 * "registers", and a whole-slot copy prints untyped instead of claiming 64-bit values. */
START_TEST(test_output_disasm_register_counts_and_copies_say_what_they_are)
{
    char *out = NULL;
    int rc = tsup_run_cli("disasm kernels/000_uniform_load/uniform_load_hlsl_naive.json", &out);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out);
    const char *first_end = strchr(out, '\n');
    ck_assert_ptr_nonnull(first_end);
    ck_assert_msg(!strstr(out, " registers, ") || strstr(out, " registers, ") > first_end, "%.300s", out);
    const char *hdr = strstr(out, "; registers: peak ");
    ck_assert_msg(hdr != NULL, "%.600s", out);
    ck_assert_msg(strstr(hdr, "counted in 32-bit registers live at once") != NULL, "%.600s", hdr);
    unsigned named = 0;
    const char *names = strstr(hdr, "the listing names v0..v");
    ck_assert_msg(names && sscanf(names, "the listing names v0..v%u", &named) == 1, "%.600s", hdr);
    unsigned highest = 0;
    int listed = 0;
    for (const char *l = strstr(out, ";  pc"); l && (l = strchr(l, '\n')); l++) {
        const char *end = strchr(l + 1, ';'), *nl = strchr(l + 1, '\n');
        if (!end || (nl && nl < end)) end = nl ? nl : l + strlen(l);
        for (const char *q = l + 1; q < end; q++) {
            unsigned n;
            if (*q == 'v' && (q[-1] == ' ' || q[-1] == ',' || q[-1] == '[' || q[-1] == '(') && sscanf(q, "v%u", &n) == 1) {
                listed = 1;
                if (n > highest) highest = n;
            }
        }
    }
    ck_assert(listed);
    ck_assert_uint_eq(named, highest);
    ck_assert_msg(!strstr(out, "mov.u64") && !strstr(out, "movm.u64"), "%s", out);
    ck_assert_msg(strstr(out, "valu  mov            v") != NULL, "%s", out);
    free(out);
}
END_TEST

/* issue 29: a tiny dispatch's memory summary (compaction on rdna2: 16 cycles) prints its DRAM traffic and time with
 * digits that are not zero, and names no bound below one DRAM round trip (rdna2.json: dram_latency 700) since the
 * preset has no latency term; the time is checked against cycles / 2250 MHz computed here. */
START_TEST(test_output_tiny_estimate_prints_digits_and_no_false_bound)
{
    char *out = NULL;
    int rc = tsup_run_cli("run kernels/001_compaction/compaction_hlsl_naive.json --machine rdna2", &out);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out);
    ck_assert_msg(!strstr(out, "0.00 MB"), "%s", out);
    ck_assert_msg(!strstr(out, "(0 hits, 0 misses)") || strstr(out, "n/a"), "%s", out);
    const char *est = strstr(out, "  estimate     ");
    ck_assert_ptr_nonnull(est);
    double cycles = 0, us = 0;
    ck_assert_msg(sscanf(est, "  estimate     %lf cycles = %lf us", &cycles, &us) == 2, "%.300s", est);
    ck_assert_msg(cycles > 0 && cycles < 700, "%.300s", est);
    ck_assert_msg(us > 0 && fabs(us - cycles / 2250.0) <= 0.1 * cycles / 2250.0, "%.300s", est);
    const char *eol = strchr(est, '\n');
    const char *bound = strstr(est, "bound by");
    ck_assert_msg(!bound || (eol && bound > eol), "%.300s", est);
    ck_assert_msg(strstr(est, "no unit bound") != NULL, "%.300s", est);
    free(out);
}
END_TEST

/* issue 29: the report of a multi-pass case describes one pass per line.  pipeline.json runs cull (5 groups),
 * compact (5) and consume (10 groups of 64, pass_consume.comp), read off the case file; the program shown is the
 * last pass's, so the kernel and dispatch lines must be consume's too. */
START_TEST(test_output_report_summary_describes_one_pass_per_line)
{
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    char args[4200], path[4100], *out = NULL;
    snprintf(path, sizeof path, "%s/r.html", dir);
    snprintf(args, sizeof args, "report kernels/001_compaction/pipeline.json -o '%s'", path);
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out);
    char *html = tsup_read_file(path, NULL);
    ck_assert_ptr_nonnull(html);
    const char *sum = strstr(html, "<pre class=\"summary\">");
    ck_assert_ptr_nonnull(sum);
    const char *kernel = strstr(sum, "\nkernel       "), *dispatch = strstr(sum, "\ndispatch     ");
    ck_assert_msg(kernel && dispatch, "%.2000s", sum);
    ck_assert_msg(strncmp(kernel, "\nkernel       kernels/001_compaction/pass_consume.comp ", 55) == 0, "%.2000s", sum);
    ck_assert_msg(strncmp(dispatch, "\ndispatch     10 x 1 x 1 workgroups of 64 x 1 x 1 ", 50) == 0, "%.2000s", sum);
    ck_assert_msg(strstr(sum, "pass 0       cull: kernels/001_compaction/pass_cull.comp, 5 x 1 x 1 workgroups") != NULL,
                  "%.2000s", sum);
    ck_assert_msg(strstr(sum, "pass 1       compact: kernels/001_compaction/pass_compact.comp, 5 x 1 x 1 workgroups")
                  != NULL, "%.2000s", sum);
    free(html);
    free(out);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/* issue 29: a timeline where every workgroup lasts as long as the next (all_true_branch on rdna2, every interval
 * 2 steps) says so instead of "2 to 2 steps" over a histogram from 2 to 3; its axis keeps plain numbers and its
 * last label inside the picture; a label drawn on a light fill (luminance over half, computed here) is black. */
START_TEST(test_output_timeline_svg_degenerate_durations_and_readable_labels)
{
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    char args[4200], path[4100], *out = NULL;
    snprintf(path, sizeof path, "%s/t.svg", dir);
    snprintf(args, sizeof args, "timeline kernels/003_wave_tricks/all_true_branch_naive.json --machine rdna2 --svg '%s'",
             path);
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out);
    char *svg = tsup_read_file(path, NULL);
    ck_assert_ptr_nonnull(svg);
    const char *d = strstr(svg, "durations: ");
    ck_assert_ptr_nonnull(d);
    double lo = 0, hi = 0;
    if (sscanf(d, "durations: %*u intervals, %lf to %lf", &lo, &hi) == 2)
        ck_assert_msg(lo != hi, "%.120s", d);
    ck_assert_msg(!strstr(svg, "e+"), "exponent in an axis label");
    ck_assert_msg(strstr(svg, "text-anchor=\"end\">3 steps</text>") || strstr(svg, "text-anchor=\"end\">2 steps</text>"),
                  "%.4000s", svg);
    ck_assert_msg(!strstr(svg, "text-anchor=\"middle\">2 steps</text>") &&
                  !strstr(svg, "text-anchor=\"middle\">3 steps</text>"), "the last axis label is centred on the edge");
    for (const char *r = svg; (r = strstr(r, "<rect x=")); r++) {
        const char *close = strchr(r, '>'), *fill = strstr(r, "fill=\"#"), *end = strstr(r, "</rect>");
        unsigned rgb;
        if (!close || close[-1] == '/' || !fill || fill > close || !end || sscanf(fill, "fill=\"#%6x\"", &rgb) != 1)
            continue;
        const char *t = end + 8;
        if (strncmp(t, "<text ", 6) != 0)
            continue;
        double lum = (0.299 * (rgb >> 16) + 0.587 * ((rgb >> 8) & 255) + 0.114 * (rgb & 255)) / 255.0;
        const char *ink = strstr(t, "fill=\"");
        ck_assert_ptr_nonnull(ink);
        if (lum > 0.5)
            ck_assert_msg(strncmp(ink, "fill=\"black\"", 12) == 0, "%.200s", r);
    }
    free(svg);
    free(out);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/* issue 29: explain's launch-order picture of a narrow grid (5 workgroups) is wide enough for its title (0.6 em per
 * character at the title's 13 px, estimated here) and writes each cell's number in ink readable on the cell's
 * colour (black above half luminance 0.299 R + 0.587 G + 0.114 B, computed here from the cell's fill). */
START_TEST(test_output_explain_svg_title_fits_and_numbers_readable)
{
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    char args[4200], path[4100], *out = NULL;
    snprintf(path, sizeof path, "%s/e.svg", dir);
    snprintf(args, sizeof args,
             "explain kernels/001_compaction/compaction_hlsl_naive.json --machine rdna2 --launch-order --svg '%s'", path);
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out);
    char *svg = tsup_read_file(path, NULL);
    ck_assert_ptr_nonnull(svg);
    int width = 0;
    const char *w = strstr(svg, " width=\"");
    ck_assert_msg(w && sscanf(w, " width=\"%d\"", &width) == 1, "%.300s", svg);
    const char *title = strstr(svg, "font-size=\"13\">");
    ck_assert_ptr_nonnull(title);
    title += strlen("font-size=\"13\">");
    const char *title_end = strstr(title, "</text>");
    ck_assert_ptr_nonnull(title_end);
    ck_assert_msg(8 + 0.6 * 13 * (double)(title_end - title) <= width, "title %.*s in %d px", (int)(title_end - title),
                  title, width);
    int numbers = 0;
    for (const char *r = svg; (r = strstr(r, "fill=\"rgb(")); r++) {
        int cr, cg, cb;
        ck_assert(sscanf(r, "fill=\"rgb(%d,%d,%d)\"", &cr, &cg, &cb) == 3);
        const char *next = strstr(r, "</rect>\n");
        if (!next || strncmp(next + 8, "<text ", 6) != 0 || strstr(r + 1, "fill=\"rgb(") < next)
            continue;
        const char *ink = strstr(next + 8, "fill=\"");
        ck_assert_ptr_nonnull(ink);
        numbers++;
        int light = 0.299 * cr + 0.587 * cg + 0.114 * cb > 127.5;
        ck_assert_msg(strncmp(ink, light ? "fill=\"black\"" : "fill=\"white\"", light ? 12 : 12) == 0, "%.300s", r);
    }
    ck_assert_int_gt(numbers, 0);
    free(svg);
    free(out);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

static Suite *output_suite(void)
{
    Suite *s = suite_create("output");
    TCase *e = tcase_create("escapers");
    tcase_add_test(e, test_output_xml_escapes_markup_and_replaces_control_characters);
    tcase_add_test(e, test_output_json_and_terminal_escape_control_characters);
    suite_add_tcase(s, e);
    TCase *c = tcase_create("command");
    tcase_set_timeout(c, 300);
    tcase_add_test(c, test_output_disasm_svg_escapes_the_case_path);
    tcase_add_test(c, test_output_profile_svg_and_trace_escape_pass_names);
    tcase_add_test(c, test_output_report_title_has_no_control_characters);
    tcase_add_test(c, test_output_tap_and_junit_show_control_characters_safely);
    tcase_add_test(c, test_output_case_errors_show_control_characters_on_one_line);
    tcase_add_test(c, test_output_explain_svg_not_written_when_the_analysis_fails);
    tcase_add_test(c, test_output_compile_disasm_keeps_utf8_source);
    tcase_add_test(c, test_output_disasm_register_counts_and_copies_say_what_they_are);
    tcase_add_test(c, test_output_tiny_estimate_prints_digits_and_no_false_bound);
    tcase_add_test(c, test_output_report_summary_describes_one_pass_per_line);
    tcase_add_test(c, test_output_timeline_svg_degenerate_durations_and_readable_labels);
    tcase_add_test(c, test_output_explain_svg_title_fits_and_numbers_readable);
    suite_add_tcase(s, c);
    return s;
}

int main(void) { return tsup_run_suite(output_suite(), "test_output"); }
