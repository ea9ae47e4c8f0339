/*
 * text/text.c — the file reader and the escapers of text/text.h.
 */
#include "text/text.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *read_failed(char *err, size_t err_size, int fd, char *buf, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static char *read_failed(char *err, size_t err_size, int fd, char *buf, const char *fmt, ...)
{
    if (err && err_size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, err_size, fmt, ap);
        va_end(ap);
    }
    if (fd >= 0)
        close(fd);
    free(buf);
    return NULL;
}

char *text_read_file(const char *path, size_t max, size_t *len, char *err, size_t err_size)
{
    /* O_NONBLOCK: opening a FIFO must not wait for a writer before fstat can refuse it */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return read_failed(err, err_size, -1, NULL, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0)
        return read_failed(err, err_size, fd, NULL, "%s: cannot open: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return read_failed(err, err_size, fd, NULL, "%s is a directory", path);
    if (!S_ISREG(st.st_mode))
        return read_failed(err, err_size, fd, NULL, "%s is not a regular file", path);
    if ((unsigned long long)st.st_size > max)
        return read_failed(err, err_size, fd, NULL, "%s: larger than %zu bytes", path, max);
    size_t n = (size_t)st.st_size, got = 0;
    char *buf = malloc(n + 1);
    if (!buf)
        return read_failed(err, err_size, fd, NULL, "%s: out of memory", path);
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return read_failed(err, err_size, fd, buf, "%s: cannot read: %s", path, strerror(errno));
        if (r == 0)
            break; /* the file shrank while it was read: what is there */
        got += (size_t)r;
    }
    close(fd);
    buf[got] = '\0';
    if (len)
        *len = got;
    return buf;
}

int text_utf8_length(const unsigned char *s)
{
    if (s[0] < 0x80)
        return 1;
    int n = (s[0] & 0xE0) == 0xC0 ? 2 : (s[0] & 0xF0) == 0xE0 ? 3 : (s[0] & 0xF8) == 0xF0 ? 4 : 0;
    if (n == 0 || (n == 2 && s[0] < 0xC2) || (n == 4 && s[0] > 0xF4))
        return 0;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    /* overlong three- and four-byte forms, UTF-16 surrogates, past U+10FFFF */
    if ((n == 3 && s[0] == 0xE0 && s[1] < 0xA0) || (n == 3 && s[0] == 0xED && s[1] >= 0xA0) ||
        (n == 4 && s[0] == 0xF0 && s[1] < 0x90) || (n == 4 && s[0] == 0xF4 && s[1] >= 0x90))
        return 0;
    return n;
}

FILE *text_output_open(const char *path, char *tmp, size_t tmp_size)
{
    int n = snprintf(tmp, tmp_size, "%s.XXXXXX", path);
    if (n < 0 || (size_t)n >= tmp_size) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    int fd = mkstemp(tmp);
    if (fd < 0)
        return NULL;
    mode_t mask = umask(0); /* mkstemp makes 0600: give the file what fopen would */
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    FILE *f = fdopen(fd, "w");
    if (!f) {
        int e = errno;
        close(fd);
        unlink(tmp);
        errno = e;
    }
    return f;
}

int text_output_close(FILE *f, const char *tmp, const char *path, int keep)
{
    int failed = fclose(f) != 0;
    if (keep && !failed && rename(tmp, path) == 0)
        return 0;
    int e = errno;
    unlink(tmp);
    errno = e;
    return keep ? -1 : 0;
}

static const char replacement[] = "\xEF\xBF\xBD"; /* U+FFFD */

void text_xml(FILE *f, const char *text, size_t n, int attribute)
{
    const unsigned char *s = (const unsigned char *)(text ? text : "");
    const unsigned char *end = n == (size_t)-1 ? NULL : s + n;
    while (*s && (!end || s < end)) {
        int len = text_utf8_length(s); /* stops at a NUL: it is no continuation byte */
        if (end && len > end - s)
            len = 0; /* a sequence cut by n is not valid UTF-8 either */
        if (len > 1) {
            /* U+FFFE and U+FFFF are not XML characters */
            if (len == 3 && s[0] == 0xEF && s[1] == 0xBF && s[2] >= 0xBE)
                fputs(replacement, f);
            else
                fwrite(s, 1, (size_t)len, f);
            s += len;
            continue;
        }
        unsigned char c = *s++;
        if (len == 0) {
            fputs(replacement, f);
            continue;
        }
        switch (c) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        case '\n': fputs(attribute ? "&#10;" : "\n", f); break;
        case '\t': fputs(attribute ? "&#9;" : "\t", f); break;
        case '\r': fputs("&#13;", f); break; /* as a reference, so parsers do not turn it into a newline */
        default:
            if (c < 0x20 || c == 0x7F)
                fputs(replacement, f);
            else
                fputc(c, f);
        }
    }
}

void text_json(FILE *f, const char *s)
{
    cJSON *str = cJSON_CreateString(s ? s : "");
    char *out = str ? cJSON_PrintUnformatted(str) : NULL;
    fputs(out ? out : "\"\"", f);
    free(out);
    cJSON_Delete(str);
}

char *text_terminal(const char *text, char *buf, size_t size)
{
    if (!size)
        return buf;
    const unsigned char *s = (const unsigned char *)(text ? text : "");
    size_t used = 0;
    for (; *s; s++) {
        char esc[8];
        size_t len;
        if (*s < 0x20 || *s == 0x7F)
            len = (size_t)snprintf(esc, sizeof esc, "\\x%02x", *s);
        else if (s[0] == 0xC2 && s[1] >= 0x80 && s[1] < 0xA0) /* C1 controls: CSI is U+009B */
            len = (size_t)snprintf(esc, sizeof esc, "\\u00%02x", s[1]), s++;
        else
            esc[0] = (char)*s, len = 1;
        if (used + len >= size)
            break;
        memcpy(buf + used, esc, len);
        used += len;
    }
    buf[used] = '\0';
    return buf;
}

double text_monospace_width(const char *s, double font_size)
{
    size_t chars = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        chars += (*p & 0xC0) != 0x80; /* continuation bytes add no character */
    return 0.61 * font_size * (double)chars;
}

char *text_strip_comments(const char *text, size_t len)
{
    char *out = malloc(len + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        if (text[i] == '\\' && i + 1 < len && (text[i + 1] == '\n' || text[i + 1] == '\r')) {
            i += (text[i + 1] == '\r' && i + 2 < len && text[i + 2] == '\n') ? 3 : 2;
        } else if (text[i] == '/' && i + 1 < len && text[i + 1] == '/') {
            while (i < len && text[i] != '\n')
                i++;
            out[o++] = ' ';
        } else if (text[i] == '/' && i + 1 < len && text[i + 1] == '*') {
            for (i += 2; i < len && !(text[i] == '*' && i + 1 < len && text[i + 1] == '/'); i++)
                if (text[i] == '\n')
                    out[o++] = '\n';
            i = i < len ? i + 2 : len;
            out[o++] = ' ';
        } else if (text[i] == '"') {
            /* a string literal: a comment opener inside it is not one */
            out[o++] = text[i++];
            while (i < len && text[i] != '"' && text[i] != '\n')
                out[o++] = text[i++];
            if (i < len && text[i] == '"')
                out[o++] = text[i++];
        } else {
            out[o++] = text[i++];
        }
    }
    out[o] = 0;
    return out;
}

int text_include_directive(const char *line, const char **name, size_t *name_len)
{
    const char *p = line + strspn(line, " \t\r\f\v");
    if (*p != '#')
        return 0;
    p += 1 + strspn(p + 1, " \t\r\f\v");
    if (strncmp(p, "include", 7) != 0 || p[7] == '_' || isalnum((unsigned char)p[7]))
        return 0;
    p += 7 + strspn(p + 7, " \t\r\f\v");
    if (*p == '<') {
        *name = p;
        *name_len = strlen(p);
        return '<';
    }
    const char *close = *p == '"' ? strchr(p + 1, '"') : NULL;
    if (!close)
        return '?';
    *name = p + 1;
    *name_len = (size_t)(close - p - 1);
    return '"';
}

void text_appendf(char *buf, size_t size, const char *fmt, ...)
{
    if (!buf || !size)
        return;
    size_t len = strlen(buf);
    if (len + 1 >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, size - len, fmt, ap);
    va_end(ap);
}
