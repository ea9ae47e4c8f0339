/*
 * cli/report_junit.c — `wavelab test` results for CI systems: a JUnit XML
 * file (--junit FILE) and TAP on stdout (--tap).  One test case per case
 * file and wave size; a failed case carries the message of each failed
 * expectation (or the fault, or the input error), so a CI page shows why
 * without the log.
 *
 * The JUnit format has no formal standard: this writes the structure every
 * consumer reads (Jenkins' junit plugin, GitLab, GitHub test reporters,
 * ctest's own output): <testsuites> holding one <testsuite> holding
 * <testcase classname name time> with an optional <failure>, <error> or
 * <skipped> child.  tests/junit/junit-basic.xsd states that structure and
 * the test suite validates the output against it with xmllint.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case/case.h"
#include "cli/cli.h"
#include "text/text.h"

/* How each outcome appears: the JUnit child element and its type, TAP's directive.  JUnit has no expected
 * failure: an XFAIL is a <skipped> of type "known failure", so JUnit's skipped = skipped + xfail. */
static const struct {
    cli_test_outcome outcome;
    const char *junit_element; /* NULL: none (a pass) */
    const char *junit_type;
    int tap_ok;
    const char *tap_directive; /* "" or " # SKIP" / " # TODO" */
} outcome_table[] = {
    {CLI_TEST_PASS, NULL, NULL, 1, ""},
    {CLI_TEST_FAIL, "failure", "failed", 0, ""},
    {CLI_TEST_ERROR, "error", "bad input", 0, ""},
    {CLI_TEST_XFAIL, "skipped", "known failure", 0, " # TODO"},
    {CLI_TEST_SKIP, "skipped", "skipped", 1, " # SKIP"},
};

static int row_of(cli_test_outcome o)
{
    for (size_t i = 0; i < sizeof outcome_table / sizeof outcome_table[0]; i++)
        if (outcome_table[i].outcome == o)
            return (int)i;
    return 1; /* unknown: report it as a failure rather than hide it */
}

/* Text as XML character data or an attribute value (text_xml: markup escaped, what XML 1.0 cannot hold as
 * U+FFFD — kernel source lines may carry either). */
static void xml_text(FILE *f, const char *text, int attribute) { text_xml(f, text, (size_t)-1, attribute); }

/* The first line of a message (for the message attribute: the whole text goes in the element's body). */
static void first_line(const char *text, char *buf, size_t size)
{
    snprintf(buf, size, "%s", text ? text : "");
    buf[strcspn(buf, "\n")] = 0;
}

/* "kernels/003_wave_tricks/scan.json" -> "kernels.003_wave_tricks.scan": the case's place as a class name,
 * which JUnit viewers group by. */
static void class_name(const char *path, char *buf, size_t size)
{
    if (!path)
        path = "";
    while (path[0] == '/' || (path[0] == '.' && path[1] == '/'))
        path += path[0] == '/' ? 1 : 2;
    snprintf(buf, size, "%s", path);
    size_t len = strlen(buf);
    if (len > 5 && strcmp(buf + len - 5, ".json") == 0)
        buf[len - 5] = 0;
    for (char *p = buf; *p; p++)
        if (*p == '/')
            *p = '.';
}

cli_test_counts cli_test_count(const cli_test_record *records, size_t count)
{
    cli_test_counts n = {{0}};
    for (size_t i = 0; i < count; i++)
        n.of[outcome_table[row_of(records[i].outcome)].outcome]++;
    return n;
}

void cli_test_summary(FILE *f, const char *prefix, const cli_test_record *records, size_t count)
{
    cli_test_counts n = cli_test_count(records, count);
    fprintf(f, "%s%zu passed, %zu failed, %zu skipped, %zu xfail\n", prefix, n.of[CLI_TEST_PASS],
            n.of[CLI_TEST_FAIL] + n.of[CLI_TEST_ERROR], n.of[CLI_TEST_SKIP], n.of[CLI_TEST_XFAIL]);
}

int cli_report_junit(FILE *f, const cli_test_record *records, size_t count)
{
    cli_test_counts n = cli_test_count(records, count);
    size_t failures = n.of[CLI_TEST_FAIL], errors = n.of[CLI_TEST_ERROR];
    size_t skipped = n.of[CLI_TEST_SKIP] + n.of[CLI_TEST_XFAIL];
    double seconds = 0;
    for (size_t i = 0; i < count; i++)
        seconds += records[i].seconds;
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
    fprintf(f, "<testsuites name=\"wavelab\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" "
               "time=\"%.6f\">\n", count, failures, errors, skipped, seconds);
    fprintf(f, "  <testsuite name=\"wavelab test\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" "
               "time=\"%.6f\">\n", count, failures, errors, skipped, seconds);
    for (size_t i = 0; i < count; i++) {
        const cli_test_record *r = &records[i];
        char cls[1024], line[1024];
        class_name(r->path, cls, sizeof cls);
        fputs("    <testcase classname=\"", f);
        xml_text(f, cls, 1);
        fprintf(f, "\" name=\"wave %u\" file=\"", r->wave);
        xml_text(f, r->path, 1); /* NULL writes "" */
        fprintf(f, "\" time=\"%.6f\"", r->seconds);
        int row = row_of(r->outcome);
        if (!outcome_table[row].junit_element) {
            fputs("/>\n", f);
            continue;
        }
        first_line(r->message, line, sizeof line);
        fprintf(f, ">\n      <%s message=\"", outcome_table[row].junit_element);
        xml_text(f, line, 1);
        fprintf(f, "\" type=\"%s\"", outcome_table[row].junit_type);
        if (r->outcome == CLI_TEST_SKIP || r->outcome == CLI_TEST_XFAIL) {
            fputs("/>\n", f); /* <skipped> holds no body in the schema */
        } else {
            fputs(">", f);
            xml_text(f, r->message, 0);
            fprintf(f, "</%s>\n", outcome_table[row].junit_element);
        }
        fputs("    </testcase>\n", f);
    }
    fputs("  </testsuite>\n</testsuites>\n", f);
    return ferror(f) ? -1 : 0;
}

void cli_report_tap(FILE *f, const cli_test_record *records, size_t count)
{
    fputs("TAP version 13\n", f);
    fprintf(f, "1..%zu\n", count);
    for (size_t i = 0; i < count; i++) {
        const cli_test_record *r = &records[i];
        int row = row_of(r->outcome);
        char raw[1024], line[1024];
        first_line(r->message, raw, sizeof raw);
        text_terminal(raw, line, sizeof line); /* TAP is text: control characters made visible */
        /* '#' in a description would start a directive */
        char path[1024], desc[1200];
        snprintf(desc, sizeof desc, "%s (wave %u)", text_terminal(r->path, path, sizeof path), r->wave);
        for (char *p = desc; *p; p++)
            if (*p == '#')
                *p = '_';
        fprintf(f, "%s %zu - %s%s", outcome_table[row].tap_ok ? "ok" : "not ok", i + 1, desc,
                outcome_table[row].tap_directive);
        if (outcome_table[row].tap_directive[0])
            fprintf(f, " %s", line);
        fputc('\n', f);
        if (!outcome_table[row].tap_ok && r->outcome != CLI_TEST_XFAIL && r->message && r->message[0]) {
            /* TAP 13 diagnostics: a YAML block; the message as a literal block scalar, one line each */
            fputs("  ---\n  message: |\n", f);
            const char *s = r->message;
            while (*s) {
                size_t n = strcspn(s, "\n");
                snprintf(raw, sizeof raw, "%.*s", (int)n, s);
                fprintf(f, "    %s\n", text_terminal(raw, line, sizeof line));
                s += n + (s[n] == '\n');
            }
            fprintf(f, "  severity: %s\n  ...\n", r->outcome == CLI_TEST_ERROR ? "error" : "fail");
        }
    }
}

char *cli_expect_failures(const struct wl_case *c, uint8_t *const *data)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    for (int i = 0; i < c->expect_count; i++) {
        char msg[1024];
        if (!case_expect_check_data(c, &c->expects[i], data, msg, sizeof msg)) /* EQ_BUFFER's reference too */
            fprintf(f, "%s%s", ftell(f) ? "\n" : "", msg);
    }
    fclose(f);
    return buf;
}
