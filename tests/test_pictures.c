/*
 * tests/test_pictures.c — every SVG wavelab draws (disasm --svg, explain --lds/--l2/--launch-order --svg,
 * timeline --svg, profile --svg), laid out by headless Chromium at two window widths on cases that stress
 * them: a long case and kernel name, a grid one workgroup wide, one workgroup (degenerate timelines), a
 * pipeline of passes and article 002's fp16 kernel (LDS).  tsup_layout_problems measures the pages (clipped
 * text, text leaving its box or unreadable on it, content overflowing); a screenshot per width must not be
 * blank.  The pictures are shown as a page shows an image, scaled to the window (max-width: 100%), the way
 * `wavelab report` embeds them.
 *
 * profile's colours are checked without a browser: every interval of a pass has the pass's colour, the
 * passes differ, and a legend names each pass beside its colour.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/tsup.h"

/* shared memory, a barrier and a neighbour's word: every picture has something to show */
static const char lds_kernel[] =
    "#version 450\n"
    "layout(local_size_x = 64) in;\n"
    "layout(set = 0, binding = 0) buffer B { uint v[]; };\n"
    "shared uint tile[64];\n"
    "void main() {\n"
    "    uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 64u;\n"
    "    tile[gl_LocalInvocationIndex] = v[i];\n"
    "    barrier();\n"
    "    v[i] = tile[(gl_LocalInvocationIndex * 2u) % 64u] + 1u;\n"
    "}\n";

#define LONG_KERNEL "a_kernel_whose_name_goes_on_and_on_to_stress_every_title_and_label_in_the_pictures.comp"

/* A case of lds_kernel on gx x gy workgroups in dir/name (the kernel beside it, under a long name). */
static char *write_case(const char *dir, const char *name, int gx, int gy)
{
    free(tsup_write_file(dir, LONG_KERNEL, lds_kernel));
    char json[1024];
    snprintf(json, sizeof json,
             "{\"kernel\": \"" LONG_KERNEL "\", \"groups\": [%d, %d, 1], \"bindings\": [{\"set\": 0, "
             "\"binding\": 0, \"type\": \"u32\", \"count\": %d, \"fill\": {\"value\": 1}}]}",
             gx, gy, gx * gy * 64);
    char *path = tsup_write_file(dir, name, json);
    ck_assert_ptr_nonnull(path);
    return path;
}

/* Appends `svg` (a file wavelab wrote) to the page as <figure id="id">. */
static void add_figure(char **page, size_t *len, const char *id, const char *svg_path)
{
    char *svg = tsup_read_file(svg_path, NULL);
    const char *start = strstr(svg, "<svg");
    ck_assert_msg(start != NULL, "%s: no <svg> in %s", id, svg_path);
    size_t n = strlen(id) + strlen(start) + 64;
    *page = realloc(*page, *len + n);
    *len += (size_t)snprintf(*page + *len, n, "<figure id=\"%s\">%s</figure>\n", id, start);
    free(svg);
}

/* Runs `wavelab ARGS` (which must succeed) writing dir/id.svg, and adds that picture to the page. */
static void draw(char **page, size_t *len, const char *dir, const char *id, const char *args)
{
    char cmd[8192], svg[4200], *out = NULL;
    snprintf(svg, sizeof svg, "%s/%s.svg", dir, id);
    snprintf(cmd, sizeof cmd, "%s --svg '%s'", args, svg);
    int rc = tsup_run_cli(cmd, &out);
    ck_assert_msg(rc == 0, "wavelab %s: exit %d\n%s", cmd, rc, out ? out : "");
    free(out);
    add_figure(page, len, id, svg);
}

/* Every picture of `case_path` on one page, measured and photographed at each width; fails listing every
 * problem found.  `lds`: the kernel executes LDS instructions (explain --lds has a picture to draw). */
static void check_pictures(const char *label, const char *case_path, int lds)
{
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    size_t len = 0;
    char *page = strdup("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><style>"
                        "body{margin:8px;font-family:sans-serif}figure{margin:0 0 16px 0}"
                        "svg{max-width:100%;height:auto}</style></head><body>\n");
    len = strlen(page);
    char args[8192];
    snprintf(args, sizeof args, "disasm '%s'", case_path);
    draw(&page, &len, dir, "disasm", args);
    if (lds) {
        snprintf(args, sizeof args, "explain '%s' --lds --machine gcn_vega64", case_path);
        draw(&page, &len, dir, "explain-lds", args);
    }
    snprintf(args, sizeof args, "explain '%s' --l2", case_path);
    draw(&page, &len, dir, "explain-l2", args);
    snprintf(args, sizeof args, "explain '%s' --launch-order", case_path);
    draw(&page, &len, dir, "explain-launch-order", args);
    snprintf(args, sizeof args, "timeline '%s'", case_path);
    draw(&page, &len, dir, "timeline", args);
    snprintf(args, sizeof args, "profile '%s' --backend sim --repeat 3", case_path);
    draw(&page, &len, dir, "profile", args);
    page = realloc(page, len + 32);
    strcpy(page + len, "</body></html>\n");

    char *report = tsup_layout_at_two_widths(dir, page, 1600, NULL, label);
    ck_assert_msg(report[0] == 0, "%s (%s): layout problems\n%s", label, case_path, report);
    free(report);
    free(page);
    tsup_remove_tree(dir);
    free(dir);
}

START_TEST(test_pictures_long_names)
{
    char *dir = tsup_temp_dir();
    char *c = write_case(dir, "a_case_file_with_a_long_name_that_every_picture_title_has_to_show_whole.json", 4, 2);
    check_pictures("long names", c, 1);
    free(c);
    tsup_remove_tree(dir);
    free(dir);
}
END_TEST

START_TEST(test_pictures_narrow_grid)
{
    char *dir = tsup_temp_dir();
    char *c = write_case(dir, "narrow.json", 1, 24);
    check_pictures("a grid one workgroup wide", c, 1);
    free(c);
    tsup_remove_tree(dir);
    free(dir);
}
END_TEST

START_TEST(test_pictures_one_workgroup)
{
    char *dir = tsup_temp_dir();
    char *c = write_case(dir, "tiny.json", 1, 1);
    check_pictures("one workgroup", c, 1);
    free(c);
    tsup_remove_tree(dir);
    free(dir);
}
END_TEST

START_TEST(test_pictures_pipeline_of_passes)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/kernels/001_compaction/pipeline.json", tsup_root());
    check_pictures("three passes", path, 0);
}
END_TEST

START_TEST(test_pictures_fp16_lds)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/kernels/002_lds_fp16/neighborhood_fp16_split.json", tsup_root());
    check_pictures("article 002's fp16 kernel", path, 1);
}
END_TEST

/* The fill of the first <rect> whose <title> starts with "name:" at or after `from` (NULL when none); *next
 * gets where the search may go on. */
static char *interval_fill(const char *from, const char *name, const char **next)
{
    char key[128];
    snprintf(key, sizeof key, "<title>%s:", name);
    const char *t = strstr(from, key);
    if (!t)
        return NULL;
    const char *rect = t;
    while (rect > from && strncmp(rect, "<rect", 5))
        rect--;
    const char *fill = strstr(rect, "fill=\"");
    ck_assert_msg(fill && fill < t, "the interval before %s has no fill", key);
    fill += 6;
    *next = t + strlen(key);
    return strndup(fill, strcspn(fill, "\""));
}

START_TEST(test_profile_colours_one_per_pass_with_a_legend)
{
    char *dir = tsup_temp_dir();
    char args[8192], svg_path[4200], *out = NULL;
    snprintf(svg_path, sizeof svg_path, "%s/profile.svg", dir);
    snprintf(args, sizeof args, "profile '%s/kernels/001_compaction/pipeline.json' --backend sim --repeat 4 --svg '%s'",
             tsup_root(), svg_path);
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "exit %d\n%s", rc, out);
    free(out);
    char *svg = tsup_read_file(svg_path, NULL);
    static const char *const passes[] = {"cull", "compact", "consume"}; /* pipeline.json's names */
    char *fills[3];
    for (int p = 0; p < 3; p++) {
        const char *at = svg;
        fills[p] = interval_fill(at, passes[p], &at);
        ck_assert_msg(fills[p] != NULL, "no interval of pass %s", passes[p]);
        int runs = 1;
        for (char *f; (f = interval_fill(at, passes[p], &at)); runs++) {
            ck_assert_msg(strcmp(f, fills[p]) == 0, "pass %s is drawn in %s and in %s", passes[p], fills[p], f);
            free(f);
        }
        ck_assert_int_eq(runs, 4);
        for (int q = 0; q < p; q++)
            ck_assert_msg(strcmp(fills[p], fills[q]), "passes %s and %s share the colour %s", passes[q], passes[p],
                          fills[p]);
        /* the legend: a swatch of the pass's colour, then its name */
        char swatch[256], label[128];
        snprintf(swatch, sizeof swatch, "fill=\"%s\" class=\"legend\"", fills[p]);
        snprintf(label, sizeof label, ">%s</text>", passes[p]);
        const char *s = strstr(svg, swatch);
        ck_assert_msg(s != NULL, "no legend swatch for pass %s (%s) in:\n%s", passes[p], fills[p], svg);
        const char *text = strstr(s, "<text");
        ck_assert_msg(text && strncmp(strchr(text, '>'), label, strlen(label)) == 0,
                      "the legend swatch of pass %s is not followed by its name", passes[p]);
    }
    for (int p = 0; p < 3; p++)
        free(fills[p]);
    free(svg);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/* One workgroup of two waves: the replay's clock counts whole steps, so every axis label is a whole number of
 * steps (the axis had "0.5 steps" and "1.5 steps"). */
START_TEST(test_timeline_of_one_workgroup_labels_whole_steps)
{
    char *dir = tsup_temp_dir();
    char *c = write_case(dir, "tiny.json", 1, 1);
    char args[8192], svg_path[4200], *out = NULL;
    snprintf(svg_path, sizeof svg_path, "%s/timeline.svg", dir);
    snprintf(args, sizeof args, "timeline '%s' --svg '%s'", c, svg_path);
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "exit %d\n%s", rc, out);
    free(out);
    char *svg = tsup_read_file(svg_path, NULL);
    int labels = 0;
    for (const char *p = svg; (p = strstr(p, " steps</text>")); p++) {
        const char *v = p;
        while (v > svg && v[-1] != '>')
            v--;
        char *end = NULL;
        double x = strtod(v, &end);
        if (end != p) /* "durations: 2 intervals, all 2 steps" */
            continue;
        if (strstr(svg, "durations:") > p) /* the time axis, before the histogram */
            ck_assert_msg(x == (double)(long)x, "the axis says %.*s steps", (int)(p - v), v), labels++;
    }
    ck_assert_int_ge(labels, 2); /* at least the start and the end */
    free(svg);
    free(c);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

static Suite *pictures_suite(void)
{
    Suite *s = suite_create("pictures");
    TCase *plain = tcase_create("svg");
    tcase_add_test(plain, test_profile_colours_one_per_pass_with_a_legend);
    tcase_add_test(plain, test_timeline_of_one_workgroup_labels_whole_steps);
    suite_add_tcase(s, plain);
    TCase *t = tsup_chromium_tcase("chromium");
    tcase_set_timeout(t, 600);
    tcase_add_test(t, test_pictures_long_names);
    tcase_add_test(t, test_pictures_narrow_grid);
    tcase_add_test(t, test_pictures_one_workgroup);
    tcase_add_test(t, test_pictures_pipeline_of_passes);
    tcase_add_test(t, test_pictures_fp16_lds);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return tsup_run_suite(pictures_suite(), "test_pictures"); }
