/*
 * tests/test_report.c — `wavelab report`: the HTML page is loaded by a real
 * browser (headless Chromium from Debian), which must render every section,
 * and a screenshot of it must show a picture, not a blank page.
 *
 * The DOM comes from `chromium --dump-dom` (the page as the browser parsed
 * and built it); the screenshot is a PNG read here with zlib: the rows are
 * unfiltered (PNG filters 0-4) and the distinct colours and the share of
 * non-white pixels counted.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <zlib.h>

#include "tests/support/tsup.h"

#define CHROMIUM_FLAGS                                                                                      \
    "--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking " \
    "--disable-component-update --disable-sync"

static const char *const sections[] = {"summary", "source", "listing", "lds", "l2", "launch", "timeline", "check"};
/* sections whose content is a picture */
static const char *const pictured[] = {"listing", "lds", "l2", "launch", "timeline"};

static char *slurp_path(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = 0;
    fclose(f);
    if (len)
        *len = (size_t)n;
    return s;
}

static char *run_shell(const char *cmd, int *status)
{
    FILE *f = popen(cmd, "r");
    ck_assert_ptr_nonnull(f);
    size_t cap = 1 << 16, n = 0, got;
    char *buf = malloc(cap);
    while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap)
            buf = realloc(buf, cap *= 2);
    }
    buf[n] = 0;
    *status = pclose(f);
    return buf;
}

static uint32_t be32(const unsigned char *p) { return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3]; }

static int paeth(int a, int b, int c)
{
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Decodes an 8-bit RGB or RGBA PNG; returns the distinct colours and *ink = share of non-white pixels. */
static size_t png_colours(const char *path, double *ink, uint32_t *width, uint32_t *height)
{
    size_t len = 0;
    unsigned char *png = (unsigned char *)slurp_path(path, &len);
    ck_assert_msg(png != NULL, "no screenshot at %s", path);
    static const unsigned char sig[8] = {137, 80, 78, 71, 13, 10, 26, 10};
    ck_assert_msg(len > 33 && memcmp(png, sig, 8) == 0, "%s is not a PNG", path);
    uint32_t w = 0, h = 0, bpp = 0;
    unsigned char *idat = NULL;
    size_t idat_len = 0;
    for (size_t at = 8; at + 12 <= len;) {
        uint32_t n = be32(png + at);
        const unsigned char *type = png + at + 4, *data = png + at + 8;
        ck_assert(at + 12 + n <= len);
        if (memcmp(type, "IHDR", 4) == 0) {
            w = be32(data), h = be32(data + 4);
            ck_assert_int_eq(data[8], 8); /* bit depth */
            ck_assert(data[9] == 2 || data[9] == 6);
            ck_assert_int_eq(data[12], 0); /* not interlaced */
            bpp = data[9] == 6 ? 4 : 3;
        } else if (memcmp(type, "IDAT", 4) == 0) {
            idat = realloc(idat, idat_len + n);
            memcpy(idat + idat_len, data, n);
            idat_len += n;
        }
        at += 12 + n;
    }
    ck_assert(w > 0 && h > 0 && idat);
    size_t stride = (size_t)w * bpp, raw_len = (stride + 1) * h;
    unsigned char *raw = malloc(raw_len);
    uLongf out_len = (uLongf)raw_len;
    ck_assert_int_eq(uncompress(raw, &out_len, idat, (uLong)idat_len), Z_OK);
    ck_assert_uint_eq(out_len, raw_len);
    unsigned char *img = calloc(stride * h, 1);
    for (uint32_t y = 0; y < h; y++) {
        const unsigned char *in = raw + y * (stride + 1) + 1;
        unsigned char filter = raw[y * (stride + 1)], *row = img + y * stride;
        const unsigned char *up = y ? img + (y - 1) * stride : NULL;
        ck_assert_int_le(filter, 4);
        for (size_t i = 0; i < stride; i++) {
            int a = i >= bpp ? row[i - bpp] : 0, b = up ? up[i] : 0, c = up && i >= bpp ? up[i - bpp] : 0;
            int pred = filter == 0 ? 0 : filter == 1 ? a : filter == 2 ? b : filter == 3 ? (a + b) / 2 : paeth(a, b, c);
            row[i] = (unsigned char)(in[i] + pred);
        }
    }
    size_t pixels = (size_t)w * h, non_white = 0;
    uint32_t *colours = malloc(pixels * sizeof *colours);
    for (size_t i = 0; i < pixels; i++) {
        const unsigned char *px = img + i * bpp;
        colours[i] = (uint32_t)px[0] << 16 | px[1] << 8 | px[2];
        non_white += colours[i] != 0xffffff;
    }
    qsort(colours, pixels, sizeof *colours, cmp_u32);
    size_t distinct = pixels ? 1 : 0;
    for (size_t i = 1; i < pixels; i++)
        distinct += colours[i] != colours[i - 1];
    *ink = (double)non_white / (double)pixels;
    *width = w, *height = h;
    free(colours);
    free(img);
    free(raw);
    free(idat);
    free(png);
    return distinct;
}

/* The text of <section id="id">...</section> in a DOM dump (NULL when absent); caller frees. */
static char *section_of(const char *dom, const char *id)
{
    char open[64];
    snprintf(open, sizeof open, "<section id=\"%s\">", id);
    const char *a = strstr(dom, open);
    if (!a)
        return NULL;
    const char *b = strstr(a, "</section>");
    ck_assert_ptr_nonnull(b);
    return strndup(a, (size_t)(b - a));
}

START_TEST(test_report_chromium_renders_every_section_and_a_nonblank_screenshot)
{
    int status = 0;
    char *which = run_shell("command -v chromium", &status);
    ck_assert_msg(status == 0, "chromium is not installed (scripts/setup.sh installs Debian's chromium)");
    free(which);
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    /* article 002's fp16 kernel has LDS traffic, so every picture has something to show */
    char args[4096], *out = NULL;
    snprintf(args, sizeof args,
             "report '%s/kernels/002_lds_fp16/neighborhood_fp16_split.json' --machine gcn_vega64 -o '%s/r.html'",
             tsup_root(), dir);
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "%s", out);
    free(out);
    char path[4096];
    snprintf(path, sizeof path, "%s/r.html", dir);
    char *page = slurp_path(path, NULL);
    ck_assert_ptr_nonnull(page);
    /* self-contained: nothing to fetch */
    ck_assert_msg(strstr(page, "src=") == NULL && strstr(page, "href=\"http") == NULL &&
                      strstr(page, "url(") == NULL && strstr(page, "@import") == NULL,
                  "the page refers to something outside itself");
    free(page);

    char cmd[16384];
    snprintf(cmd, sizeof cmd, "chromium " CHROMIUM_FLAGS " --user-data-dir='%s/profile1' --dump-dom 'file://%s' "
             "2>/dev/null", dir, path);
    char *dom = run_shell(cmd, &status);
    ck_assert_msg(status == 0, "chromium --dump-dom failed (%d)", status);
    ck_assert_msg(strstr(dom, "</html>") != NULL, "no DOM:\n%.500s", dom);
    for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++) {
        char *s = section_of(dom, sections[i]);
        ck_assert_msg(s != NULL, "section %s missing from the rendered page", sections[i]);
        ck_assert_msg(strstr(s, "<h2>") != NULL, "section %s has no heading", sections[i]);
        free(s);
    }
    for (size_t i = 0; i < sizeof pictured / sizeof pictured[0]; i++) {
        char *s = section_of(dom, pictured[i]);
        ck_assert_msg(strstr(s, "<svg") && strstr(s, "<rect"), "section %s has no picture", pictured[i]);
        free(s);
    }
    char *summary = section_of(dom, "summary");
    ck_assert_msg(strstr(summary, "PASS") != NULL, "summary has no expectation result");
    free(summary);
    free(dom);

    char png[4096];
    snprintf(png, sizeof png, "%s/shot.png", dir);
    snprintf(cmd, sizeof cmd, "chromium " CHROMIUM_FLAGS " --user-data-dir='%s/profile2' --hide-scrollbars "
             "--window-size=1200,2400 --screenshot='%s' 'file://%s' >/dev/null 2>&1", dir, png, path);
    free(run_shell(cmd, &status));
    ck_assert_msg(status == 0, "chromium --screenshot failed (%d)", status);
    double ink = 0;
    uint32_t w = 0, h = 0;
    size_t colours = png_colours(png, &ink, &w, &h);
    ck_assert_uint_eq(w, 1200);
    ck_assert_uint_eq(h, 2400);
    /* a blank or failed page is one or two colours; text, bars and the curve give many */
    ck_assert_msg(colours > 50, "screenshot has only %zu colours", colours);
    ck_assert_msg(ink > 0.03, "screenshot is %.1f%% ink", 100 * ink);
    /* the browser profiles are folders: tsup_remove_dir takes plain files only */
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
    free(dir);
}
END_TEST

START_TEST(test_report_bad_arguments_exit_2)
{
    char *out = NULL;
    ck_assert_int_eq(tsup_run_cli("report", &out), 2);
    free(out);
    char args[4096];
    snprintf(args, sizeof args, "report '%s/kernels/002_lds_fp16/neighborhood_fp16_split.json' --backend metal -o x",
             tsup_root());
    ck_assert_int_eq(tsup_run_cli(args, &out), 2);
    ck_assert_ptr_nonnull(strstr(out, "--backend"));
    free(out);
}
END_TEST

static Suite *report_suite(void)
{
    Suite *s = suite_create("report");
    TCase *t = tcase_create("report");
    tcase_set_timeout(t, 300);
    tcase_add_test(t, test_report_chromium_renders_every_section_and_a_nonblank_screenshot);
    tcase_add_test(t, test_report_bad_arguments_exit_2);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return tsup_run_suite(report_suite(), "test_report"); }
