/*
 * text/text.h — text in and out.  In: the one file reader (regular files only,
 * so a directory or a FIFO given as a kernel, an include, a case or a preset
 * is refused by name rather than read as 2^63 bytes or forever).  Out: one
 * escaper per output language, so that text from a case
 * file, a path or a kernel (any bytes at all) can never change the structure
 * of what wavelab writes: markup in an SVG, HTML or XML file, a string in a
 * JSON file, or escape sequences on a terminal.  Every writer of those
 * languages goes through these functions; none writes such text raw.
 *
 * What each language cannot hold is replaced the same way everywhere:
 *   XML/SVG/HTML: control characters other than tab, newline and carriage
 *     return, and bytes that are not valid UTF-8, become U+FFFD (XML 1.0
 *     forbids those characters even as character references);
 *   JSON: cJSON's string writer (\uXXXX for control characters);
 *   terminal: control characters (C0, DEL and UTF-8-encoded C1) become
 *     visible \xNN (\u00NN for C1), so a message stays one line and sends no
 *     escape sequence.
 */
#ifndef WAVELAB_TEXT_H
#define WAVELAB_TEXT_H

#include <stddef.h>
#include <stdio.h>

/* The whole regular file at `path`, NUL-terminated (*len, when not NULL, excludes the NUL), at most max bytes.
 * NULL on failure with one line in err (err may be NULL): "PATH: cannot open: REASON", "PATH is a directory",
 * "PATH is not a regular file", "PATH: larger than N bytes", "PATH: cannot read: REASON", "PATH: out of memory".
 * The caller frees the text. */
char *text_read_file(const char *path, size_t max, size_t *len, char *err, size_t err_size);

/* A copy of `len` bytes of source text (GLSL/HLSL) with each comment replaced by a space (a block comment keeps
 * its newlines, so line numbers stay) and line continuations removed; a comment opener inside a string literal
 * is not one.  NULL when out of memory; the caller frees it. */
char *text_strip_comments(const char *text, size_t len);

/* The #include directive of one line of comment-free text (NUL-terminated at the line's end): 0 when the line is
 * none; '"' for #include "NAME", *name and *name_len the name between the quotes; '<' for #include <...>, *name
 * the operand from its '<' to the line's end; '?' for any other operand (a macro, an unclosed quote). */
int text_include_directive(const char *line, const char **name, size_t *name_len);

/* An output file written in full or not at all: text_output_open opens a temporary file beside `path`
 * ("PATH.XXXXXX", its name in tmp, tmp_size >= strlen(path) + 8) with the permissions a new file gets;
 * text_output_close closes it and, when keep is set, renames it onto path (0, or -1 with errno set and the
 * temporary removed), otherwise removes it (0).  So a failed analysis leaves no empty or partial file. */
FILE *text_output_open(const char *path, char *tmp, size_t tmp_size);
int text_output_close(FILE *f, const char *tmp, const char *path, int keep);

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when the bytes there are not one (overlong forms,
 * surrogates and code points past U+10FFFF included).  s[0] must not be NUL. */
int text_utf8_length(const unsigned char *s);

/* Writes at most n bytes of s (stopping at a NUL; n = (size_t)-1 for the whole string) as XML character data
 * (attribute = 0) or as the value of an attribute in double or single quotes (attribute = 1: newlines and tabs
 * as character references so they survive attribute normalisation).  Serves SVG and HTML as well. */
void text_xml(FILE *f, const char *s, size_t n, int attribute);

/* The width in pixels of s drawn in a monospace font of font_size pixels: 0.61 em per character (DejaVu Sans
 * Mono's advance is 0.602 em, Liberation Mono's 0.600), each UTF-8 sequence one character.  The SVG writers
 * draw their text in monospace so that a picture can be made wide enough for a title without a browser. */
double text_monospace_width(const char *s, double font_size);

/* Writes s (NULL writes "") as a JSON string, quotes included, with cJSON's escaping. */
void text_json(FILE *f, const char *s);

/* Copies s into buf (size bytes, always terminated, truncated at a whole escape) with every control character
 * made visible as above; returns buf. */
char *text_terminal(const char *s, char *buf, size_t size);

/* Appends printf-style text to the NUL-terminated buf of `size` bytes, truncating at its end; buf NULL or size 0:
 * nothing. */
void text_appendf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
