/* svg.c: self-contained interactive flamegraphs (no network: the script and style are
 * inline), written by one writer for two sources:
 *
 *   - the profile's flamegraph (wd_prof_write_svg): frames are the calling-context tree of
 *     every run merged by display name, coloured by kind;
 *   - the differential flamegraph of `wasmdbg diff --svg` (svg.h): the tree of NEW's folded
 *     stacks, frames coloured by how their self ticks changed since OLD's.
 *
 * The root is at the bottom, widths in ticks. Click a frame to zoom on it (its ancestors
 * fill the width, faded), Reset Zoom or Escape to go back; Search (or Ctrl-F) highlights
 * frames whose name matches a regular expression and shows the share of ticks they cover; a
 * frame's tooltip gives its figures. `#search=RE` in the URL searches on load and
 * `#selftest` zooms and searches by itself, writing the results into the root element's
 * data-selftest attribute (for headless browser tests). */
#include "profiler/svg.h"

#include "profiler/output.h"
#include "profiler/prof_priv.h"
#include "profiler/wbuf.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#define WIDTH     1200.0
#define PAD       10.0
#define FRAME_H   16
#define HEADER    36
#define FOOTER    30
#define MIN_WIDTH 0.1
#define CHAR_W    7.0

/* The length of the valid UTF-8 sequence at s (NUL-terminated), 0 if it is not one or is a
 * character XML does not allow (surrogates, U+FFFE, U+FFFF). */
static size_t utf8_len(const unsigned char *s)
{
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    uint32_t cp;
    size_t n;
    if (c < 0xC2)
        return 0;
    if (c < 0xE0) {
        n = 2;
        cp = c & 0x1F;
    } else if (c < 0xF0) {
        n = 3;
        cp = c & 0x0F;
    } else if (c < 0xF5) {
        n = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) /* also stops at the terminator */
            return 0;
        cp = cp << 6 | (s[i] & 0x3Fu);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF) || cp == 0xFFFE || cp == 0xFFFF)
        return 0;
    return n;
}

/* Bytes XML character data keeps as they are: printable ASCII but markup. */
static const bool xml_plain[256] = {
    [' '] = 1, ['!'] = 1, ['#'] = 1, ['$'] = 1, ['%'] = 1, ['('] = 1, [')'] = 1, ['*'] = 1,
    ['+'] = 1, [','] = 1, ['-'] = 1, ['.'] = 1, ['/'] = 1, ['0'] = 1, ['1'] = 1, ['2'] = 1,
    ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1, [':'] = 1,
    [';'] = 1, ['='] = 1, ['?'] = 1, ['@'] = 1, ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1,
    ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1,
    ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1,
    ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1, ['['] = 1, ['\\'] = 1,
    [']'] = 1, ['^'] = 1, ['_'] = 1, ['`'] = 1, ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1,
    ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1,
    ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1,
    ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1, ['{'] = 1, ['|'] = 1,
    ['}'] = 1, ['~'] = 1, [0x7F] = 1,
};

/* Escapes *sp as XML character data into o (room for 6 bytes per byte read), up to its end
 * or once at least `max` bytes are read (a UTF-8 sequence is not split); *sp moves past
 * what was read. Markup is escaped; control characters and bytes that are not UTF-8
 * (folded stacks read by `diff` are any text) become '?', so the file stays well-formed
 * whatever the names. Returns the bytes written. */
static size_t xml_escape(char *o, const char **sp, size_t max)
{
    const unsigned char *s = (const unsigned char *)*sp, *stop = s + max;
    char *b = o;
    while (*s != 0 && s < stop) {
        unsigned char c = *s;
        if (WD_LIKELY(xml_plain[c])) {
            *o++ = (char)c;
            s++;
            continue;
        }
        size_t n = c >= 0x80 ? utf8_len(s) : 0;
        if (n != 0) {
            memcpy(o, s, n);
            o += n;
            s += n;
            continue;
        }
        const char *e = c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;"
                      : c == '"' ? "&quot;" : c == '\'' ? "&apos;" : "?";
        size_t en = strlen(e);
        memcpy(o, e, en);
        o += en;
        s++;
    }
    *sp = (const char *)s;
    return (size_t)(o - b);
}

/* s as XML character data (xml_escape). */
static void xml_text(wbuf *w, const char *s)
{
    while (*s != 0) {
        char *o = wb_reserve(w, 6 * 1024 + 8);
        wb_commit(w, o + xml_escape(o, &s, 1024));
    }
}

/* A non-negative number with two decimals. */
static inline char *wp_fix2(char *o, double v)
{
    uint64_t c = (uint64_t)(v * 100.0 + 0.5);
    o = wp_u64(o, c / 100);
    o[0] = '.';
    o[1] = (char)('0' + c / 10 % 10);
    o[2] = (char)('0' + c % 10);
    return o + 3;
}

/* Writes at most `chars` characters of s (UTF-8 aware), with ".." when cut; esc: s as
 * xml_text writes it, esc_size bytes. */
static void xml_label(wbuf *f, const char *s, const char *esc, size_t esc_size, double width)
{
    int chars = (int)((width - 4.0) / CHAR_W);
    if (chars < 3)
        return;
    size_t n = 0, count = 0, cut = 0;
    while (s[n] != '\0') {
        if (((unsigned char)s[n] & 0xC0) != 0x80) {
            if ((int)count == chars - 2)
                cut = n;
            count++;
        }
        n++;
    }
    if ((int)count <= chars) {
        wb_bytes(f, esc, esc_size);
        return;
    }
    char buf[1024];
    if (cut >= sizeof buf - 3)
        cut = sizeof buf - 3;
    /* do not split a UTF-8 sequence */
    while (cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
        cut--;
    memcpy(buf, s, cut);
    memcpy(buf + cut, "..", 3);
    xml_text(f, buf);
}

static uint32_t name_hash(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 16777619u;
    return h;
}

static const char script[] =
    "var svg, frames, details, matchedtext, unzoombtn, searchbtn, searching = null;\n"
    "var W = 1200, PAD = 10, CHAR_W = 7;\n"
    "function rect(g) { return g.getElementsByTagName('rect')[0]; }\n"
    "function label(g) { return g.getElementsByTagName('text')[0]; }\n"
    "function group(e) {\n"
    "  while (e && e !== frames) { if (e.tagName === 'g' && e.hasAttribute('data-name')) return e;"
    " e = e.parentNode; }\n"
    "  return null;\n"
    "}\n"
    "function fit(g, x, w) {\n"
    "  var t = label(g), name = g.getAttribute('data-name'), n = Math.floor((w - 4) / CHAR_W);\n"
    "  t.setAttribute('x', (x + 3).toFixed(2));\n"
    "  if (n < 3) { t.textContent = ''; return; }\n"
    "  t.textContent = name.length <= n ? name : name.substring(0, n - 2) + '..';\n"
    "}\n"
    "function place(g, x, w) {\n"
    "  var r = rect(g); r.setAttribute('x', x.toFixed(2)); r.setAttribute('width', w.toFixed(2));\n"
    "  fit(g, x, w);\n"
    "}\n"
    "function all() { return frames.getElementsByTagName('g'); }\n"
    "function zoom(g) {\n"
    "  var r = rect(g), x0 = +r.getAttribute('data-ox'), w0 = +r.getAttribute('data-ow');\n"
    "  var d0 = +g.getAttribute('data-depth'), scale = (W - 2 * PAD) / w0, gs = all(), e = 0.005;\n"
    "  for (var i = 0; i < gs.length; i++) {\n"
    "    var f = gs[i], fr = rect(f), x = +fr.getAttribute('data-ox'), w = "
    "+fr.getAttribute('data-ow');\n"
    "    var d = +f.getAttribute('data-depth');\n"
    "    f.classList.remove('parent'); f.classList.remove('hide');\n"
    "    if (d < d0 && x <= x0 + e && x + w >= x0 + w0 - e) { f.classList.add('parent');"
    " place(f, PAD, W - 2 * PAD); }\n"
    "    else if (d >= d0 && x >= x0 - e && x + w <= x0 + w0 + e) place(f, PAD + (x - x0) * scale,"
    " w * scale);\n"
    "    else f.classList.add('hide');\n"
    "  }\n"
    "  unzoombtn.classList.remove('hide');\n"
    "  svg.setAttribute('data-zoomed', g.getAttribute('data-name'));\n"
    "}\n"
    "function unzoom() {\n"
    "  var gs = all();\n"
    "  for (var i = 0; i < gs.length; i++) {\n"
    "    var f = gs[i], fr = rect(f);\n"
    "    f.classList.remove('parent'); f.classList.remove('hide');\n"
    "    place(f, +fr.getAttribute('data-ox'), +fr.getAttribute('data-ow'));\n"
    "  }\n"
    "  unzoombtn.classList.add('hide');\n"
    "  svg.removeAttribute('data-zoomed');\n"
    "}\n"
    "function search(term) {\n"
    "  var re, gs = all(), spans = [];\n"
    "  try { re = new RegExp(term); } catch (err) { matchedtext.textContent = 'bad regex'; return "
    "-1; }\n"
    "  for (var i = 0; i < gs.length; i++) {\n"
    "    var f = gs[i], fr = rect(f);\n"
    "    if (!fr.hasAttribute('data-fill')) fr.setAttribute('data-fill', "
    "fr.getAttribute('fill'));\n"
    "    if (re.test(f.getAttribute('data-name'))) {\n"
    "      fr.setAttribute('fill', 'rgb(230,0,230)');\n"
    "      spans.push([+fr.getAttribute('data-ox'), +fr.getAttribute('data-ow')]);\n"
    "    } else fr.setAttribute('fill', fr.getAttribute('data-fill'));\n"
    "  }\n"
    "  spans.sort(function (a, b) { return a[0] - b[0]; });\n"
    "  var covered = 0, end = -1;\n"
    "  for (var k = 0; k < spans.length; k++) {\n"
    "    var s = spans[k][0], t = s + spans[k][1];\n"
    "    if (s >= end) { covered += t - s; end = t; } else if (t > end) { covered += t - end;"
    " end = t; }\n"
    "  }\n"
    "  var pct = 100 * covered / (W - 2 * PAD);\n"
    "  searching = term;\n"
    "  searchbtn.classList.add('active');\n"
    "  matchedtext.textContent = 'Matched: ' + pct.toFixed(1) + '%';\n"
    "  svg.setAttribute('data-matched', pct.toFixed(1));\n"
    "  return pct;\n"
    "}\n"
    "function reset_search() {\n"
    "  var gs = all();\n"
    "  for (var i = 0; i < gs.length; i++) { var fr = rect(gs[i]);\n"
    "    if (fr.hasAttribute('data-fill')) fr.setAttribute('fill', fr.getAttribute('data-fill')); "
    "}\n"
    "  searching = null; searchbtn.classList.remove('active'); matchedtext.textContent = '';\n"
    "  svg.removeAttribute('data-matched');\n"
    "}\n"
    "function search_prompt() {\n"
    "  if (searching !== null) { reset_search(); return; }\n"
    "  var term = prompt('Search for (regular expression):', '');\n"
    "  if (term) search(term);\n"
    "}\n"
    "function selftest() {\n"
    "  var gs = all(), best = null, out = [];\n"
    "  for (var i = 0; i < gs.length; i++)\n"
    "    if (+gs[i].getAttribute('data-depth') === 2 && (best === null ||"
    " +rect(gs[i]).getAttribute('data-ow') > +rect(best).getAttribute('data-ow'))) best = gs[i];\n"
    "  if (best === null && gs.length > 0) best = gs[0];\n"
    "  if (best !== null) {\n"
    "    zoom(best);\n"
    "    var w = +rect(best).getAttribute('width');\n"
    "    out.push('zoom:' + (Math.abs(w - (W - 2 * PAD)) < 0.1 ? 'ok' : 'bad'));\n"
    "    unzoom();\n"
    "    w = +rect(best).getAttribute('width');\n"
    "    out.push('unzoom:' + (Math.abs(w - +rect(best).getAttribute('data-ow')) < 0.1 ? 'ok' :"
    " 'bad'));\n"
    "  }\n"
    "  out.push('search:' + search('kernel_run').toFixed(1));\n"
    "  reset_search();\n"
    "  out.push('frames:' + gs.length);\n"
    "  svg.setAttribute('data-selftest', out.join(' '));\n"
    "}\n"
    "function init(evt) {\n"
    "  svg = document.documentElement;\n"
    "  frames = document.getElementById('frames');\n"
    "  details = document.getElementById('details');\n"
    "  matchedtext = document.getElementById('matched');\n"
    "  unzoombtn = document.getElementById('unzoom');\n"
    "  searchbtn = document.getElementById('search');\n"
    "  var gs = all();\n"
    "  for (var i = 0; i < gs.length; i++) { var r = rect(gs[i]);\n"
    "    r.setAttribute('data-ox', r.getAttribute('x'));"
    " r.setAttribute('data-ow', r.getAttribute('width')); }\n"
    "  frames.addEventListener('click', function (e) { var g = group(e.target); if (g) zoom(g); "
    "});\n"
    "  frames.addEventListener('mouseover', function (e) { var g = group(e.target);"
    " if (g) details.textContent = g.getAttribute('data-info'); });\n"
    "  frames.addEventListener('mouseout', function () { details.textContent = ' '; });\n"
    "  unzoombtn.addEventListener('click', unzoom);\n"
    "  searchbtn.addEventListener('click', search_prompt);\n"
    "  document.addEventListener('keydown', function (e) {\n"
    "    if (e.key === 'Escape') unzoom();\n"
    "    if ((e.ctrlKey || e.metaKey) && e.key === 'f') { e.preventDefault(); search_prompt(); }\n"
    "  });\n"
    "  var h = decodeURIComponent(location.hash || '');\n"
    "  if (h.indexOf('#search=') === 0) search(h.substring(8));\n"
    "  if (h === '#selftest') selftest();\n"
    "  svg.setAttribute('data-ready', '1');\n"
    "}\n";

/* ---- the writer both flamegraphs share ---- */

/* What a flamegraph draws besides the tree's shape: names, colours, tooltips, heading. */
typedef struct svg_style {
    void *ud;
    const char *(*name)(void *ud, uint32_t node);
    /* Writes the frame's fill colour into fill; returns its class (NULL: none). */
    const char *(*paint)(void *ud, uint32_t node, char *fill, size_t size);
    /* The frame's tooltip after its name (which the writer puts first), XML-escaped:
     * `brief` for its <title>, else the details line. `all`: the ticks of the whole graph. */
    void (*info)(void *ud, wbuf *w, uint32_t node, uint64_t all, bool brief);
    void (*title)(void *ud, wbuf *w, uint64_t all); /* the heading, XML-escaped */
    /* Elements under the heading, `extra_h` pixels high (a legend); NULL: none. */
    void (*extra)(void *ud, wbuf *w);
    int extra_h;
    const char *css; /* more style rules, or NULL */
} svg_style;

typedef struct svgctx {
    wd_ctx *ctx;
    const prof_tree *tr;
    const uint64_t *width; /* per node, in ticks */
    const svg_style *st;
    uint64_t all;
    double *x; /* left edge of the next child, per depth */
    uint32_t x_cap;
    uint32_t max_depth_seen;
    int height;
    wbuf *f;
    char *esc; /* the current frame's name, escaped (esc_cap bytes) */
    size_t esc_cap;
    bool oom;
    bool measure; /* first pass: the depth only */
} svgctx;

/* The frame's name escaped into c->esc (xml_text's bytes); false on OOM. */
static bool escape_name(svgctx *c, const char *name, size_t *size)
{
    size_t n = strlen(name);
    if (n > SIZE_MAX / 8)
        return false;
    if (6 * n + 8 > c->esc_cap) {
        size_t cap = 6 * n + 64;
        char *e = wd_realloc(c->ctx, c->esc, cap);
        if (e == NULL)
            return false;
        c->esc = e;
        c->esc_cap = cap;
    }
    *size = xml_escape(c->esc, &name, n);
    return true;
}

static void svg_frame(svgctx *c, uint32_t node, uint32_t depth, double x, double w)
{
    const svg_style *st = c->st;
    const char *name = st->name(st->ud, node);
    size_t en;
    if (!escape_name(c, name, &en)) {
        c->oom = true;
        return;
    }
    char fill[48];
    const char *cls = st->paint(st->ud, node, fill, sizeof fill);
    int top = c->height - FOOTER - (int)depth * FRAME_H;
    wbuf *f = c->f;
    WB_LIT(f, "<g data-name=\"");
    wb_bytes(f, c->esc, en);
    if (cls != NULL) {
        WB_LIT(f, "\" class=\"");
        wb_str(f, cls);
    }
    char *o = wb_reserve(f, 64);
    o = WP_LIT(o, "\" data-depth=\"");
    o = wp_u32(o, depth);
    o = WP_LIT(o, "\" data-info=\"");
    wb_commit(f, o);
    wb_bytes(f, c->esc, en);
    st->info(st->ud, f, node, c->all, false);
    WB_LIT(f, "\"><title>");
    wb_bytes(f, c->esc, en);
    st->info(st->ud, f, node, c->all, true);
    o = wb_reserve(f, 256 + sizeof fill);
    o = WP_LIT(o, "</title><rect x=\"");
    o = wp_fix2(o, x);
    o = WP_LIT(o, "\" y=\"");
    o = wp_u64(o, (uint64_t)top);
    o = WP_LIT(o, "\" width=\"");
    o = wp_fix2(o, w);
    o = WP_LIT(o, "\" height=\"15\" fill=\"");
    size_t fn = strlen(fill);
    memcpy(o, fill, fn);
    o = WP_LIT(o + fn, "\" rx=\"2\" ry=\"2\"/><text x=\"");
    o = wp_fix2(o, x + 3);
    o = WP_LIT(o, "\" y=\"");
    o = wp_u64(o, (uint64_t)(top + FRAME_H - 4));
    o = WP_LIT(o, "\">");
    wb_commit(f, o);
    xml_label(f, name, c->esc, en, w);
    WB_LIT(f, "</text></g>\n");
}

static bool svg_visit(svgctx *c, uint32_t node, uint32_t depth)
{
    double span = WIDTH - 2 * PAD;
    double w = (double)c->width[node] / (double)c->all * span;
    if (w < MIN_WIDTH)
        return false;
    if (depth + 1 >= c->x_cap &&
        !wd_grow(c->ctx, (void **)&c->x, &c->x_cap, sizeof *c->x, (uint64_t)depth + 2)) {
        c->oom = true;
        return false;
    }
    if (depth == 1 && c->x[0] < PAD)
        c->x[0] = PAD;
    double x = c->x[depth - 1];
    c->x[depth - 1] += w;
    c->x[depth] = x;
    if (c->measure) {
        if (depth > c->max_depth_seen)
            c->max_depth_seen = depth;
        return true;
    }
    svg_frame(c, node, depth, x, w);
    return true;
}

/* Pre-order over the tree (root 0, not drawn), skipping frames too narrow to draw. */
static void svg_walk(svgctx *c)
{
    const prof_tree *tr = c->tr;
    if (c->x != NULL)
        memset(c->x, 0, (size_t)c->x_cap * sizeof *c->x);
    uint32_t x = tr->nodes[0].first_child, depth = 1;
    while (x != PROF_NONE && !c->oom) {
        bool down = svg_visit(c, x, depth);
        if (down && tr->nodes[x].first_child != PROF_NONE) {
            x = tr->nodes[x].first_child;
            depth++;
            continue;
        }
        while (x != 0 && tr->nodes[x].next_sibling == PROF_NONE) {
            x = tr->nodes[x].parent;
            depth--;
        }
        x = x == 0 ? PROF_NONE : tr->nodes[x].next_sibling;
    }
}

static void svg_head(svgctx *c, uint64_t all)
{
    wbuf *w = c->f;
    const svg_style *st = c->st;
    char b[1024];
    snprintf(b, sizeof b,
             "<?xml version=\"1.0\" standalone=\"no\"?>\n"
             "<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
             "onload=\"init(evt)\" xmlns=\"http://www.w3.org/2000/svg\">\n",
             (int)WIDTH, c->height, (int)WIDTH, c->height);
    wb_str(w, b);
    wb_str(w, "<style>\n"
              "text { font-family: Verdana, sans-serif; font-size: 12px; fill: #000; }\n"
              "#frames text { pointer-events: none; }\n"
              "#frames g:hover rect { stroke: #000; stroke-width: 0.5; cursor: pointer; }\n"
              ".hide { display: none; }\n"
              ".parent { opacity: 0.5; }\n"
              "#title { font-size: 17px; }\n"
              "#unzoom, #search { cursor: pointer; }\n"
              "#search.active { fill: rgb(230,0,230); }\n");
    if (st->css != NULL)
        wb_str(w, st->css);
    wb_str(w, "</style>\n<script type=\"text/ecmascript\"><![CDATA[\n");
    wb_str(w, script);
    snprintf(b, sizeof b,
             "]]></script>\n"
             "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#f8f8f4\"/>\n"
             "<text id=\"title\" x=\"%d\" y=\"24\" text-anchor=\"middle\">",
             (int)WIDTH, c->height, (int)(WIDTH / 2));
    wb_str(w, b);
    st->title(st->ud, w, all);
    wb_str(w, "</text>\n");
    if (st->extra != NULL)
        st->extra(st->ud, w);
    snprintf(b, sizeof b,
             "<text id=\"unzoom\" class=\"hide\" x=\"%d\" y=\"24\">Reset Zoom</text>\n"
             "<text id=\"search\" x=\"%d\" y=\"24\">Search</text>\n"
             "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n"
             "<text id=\"matched\" x=\"%d\" y=\"%d\"> </text>\n<g id=\"frames\">\n",
             (int)PAD, (int)(WIDTH - PAD - 60), (int)PAD, c->height - 10, (int)(WIDTH - PAD - 130),
             c->height - 10);
    wb_str(w, b);
}

/* Writes the flamegraph of `tr` (root: node 0) whose frames are `width[node]` ticks wide. */
static wd_status svg_write(wd_ctx *ctx, FILE *f, const prof_tree *tr, const uint64_t *width,
                           const svg_style *st, wd_error *err)
{
    wbuf *wb = wd_alloc(ctx, sizeof *wb);
    if (wb == NULL)
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    wb_init(wb, f);
    svgctx c = {.ctx = ctx, .tr = tr, .width = width, .st = st, .f = wb, .measure = true};
    uint64_t all = 0;
    for (uint32_t k = tr->nodes[0].first_child; k != PROF_NONE; k = tr->nodes[k].next_sibling)
        all += width[k];
    c.all = all ? all : 1;
    if (all != 0)
        svg_walk(&c);
    if (!c.oom) {
        c.measure = false;
        c.height = HEADER + st->extra_h + FOOTER + (int)(c.max_depth_seen + 1) * FRAME_H;
        svg_head(&c, all);
        if (all != 0)
            svg_walk(&c);
    }
    wb_str(wb, "</g>\n</svg>\n");
    wb_flush(wb);
    bool failed = wb->failed;
    wd_free(ctx, wb);
    wd_free(ctx, c.x);
    wd_free(ctx, c.esc);
    if (c.oom)
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    if (failed || ferror(f))
        return wd_fail(err, WD_ERR_IO, 0, "write error: %s", strerror(errno));
    return WD_OK;
}

/* ---- the profile's flamegraph ---- */

typedef struct prof_style {
    wd_prof *p;
    const prof_tree *tr;
    const uint64_t *tot;
    const wd_prof_out *o;
} prof_style;

static const prof_sym *prof_sym_of(const prof_style *s, uint32_t node)
{
    return &s->p->syms.data[s->tr->nodes[node].sym];
}

static const char *prof_frame_name(void *ud, uint32_t node)
{
    return prof_sym_of(ud, node)->name;
}

/* Writes "rgb(r,g,b)" (components 0..255) into fill, without printf: the SVG has a colour
 * per frame. */
static void rgb(char *fill, size_t size, int r, int g, int b)
{
    const int v[3] = {r, g, b};
    size_t n = 0;
    if (size < sizeof "rgb(255,255,255)")
        return;
    memcpy(fill, "rgb(", 4), n = 4;
    for (int k = 0; k < 3; k++) {
        unsigned x = (unsigned)(v[k] < 0 ? 0 : v[k] > 255 ? 255 : v[k]);
        if (x >= 100)
            fill[n++] = (char)('0' + x / 100);
        if (x >= 10)
            fill[n++] = (char)('0' + x / 10 % 10);
        fill[n++] = (char)('0' + x % 10);
        fill[n++] = k < 2 ? ',' : ')';
    }
    fill[n] = '\0';
}

static const char *prof_paint(void *ud, uint32_t node, char *fill, size_t size)
{
    const prof_sym *s = prof_sym_of(ud, node);
    uint32_t h = name_hash(s->name, strlen(s->name));
    unsigned a = h & 0xFF, b = (h >> 8) & 0xFF, c = (h >> 16) & 0xFF;
    int r, g, bl;
    switch ((wd_prof_kind)s->kind) {
    case WD_PROF_INTERNAL: /* phases: blue */
        r = 80 + (int)(a % 50), g = 130 + (int)(b % 60), bl = 200 + (int)(c % 55);
        break;
    case WD_PROF_HOST: /* host functions: aqua */
        r = 50 + (int)(a % 60), g = 180 + (int)(b % 60), bl = 170 + (int)(c % 60);
        break;
    case WD_PROF_SECTION: /* annotations: purple */
        r = 170 + (int)(a % 50), g = 110 + (int)(b % 50), bl = 210 + (int)(c % 45);
        break;
    default: /* wasm functions: warm */
        r = 205 + (int)(a % 50), g = (int)(b % 230), bl = (int)(c % 55);
        break;
    }
    rgb(fill, size, r, g, bl);
    return NULL;
}

static void prof_info(void *ud, wbuf *f, uint32_t node, uint64_t all, bool brief)
{
    const prof_style *s = ud;
    const prof_node *y = &s->tr->nodes[node];
    char *o = wb_reserve(f, 128);
    o = WP_LIT(o, " (");
    o = wp_u64(o, s->tot[node]);
    o = WP_LIT(o, " ticks, ");
    o = wp_fix2(o, 100.0 * (double)s->tot[node] / (double)all);
    *o++ = '%';
    if (!brief) {
        o = WP_LIT(o, ", ");
        o = wp_u64(o, y->t);
        o = WP_LIT(o, " self, ");
        o = wp_u64(o, y->calls);
        o = WP_LIT(o, " calls");
    }
    *o++ = ')';
    wb_commit(f, o);
}

static void prof_title(void *ud, wbuf *w, uint64_t all)
{
    const wd_prof_out *o = ((const prof_style *)ud)->o;
    wb_str(w, "Flame graph: ");
    xml_text(w, o->kernel ? o->kernel : "kernel");
    wb_str(w, " (");
    wb_u64(w, all);
    wb_str(w, " ticks, ");
    xml_text(w, o->tick_model ? o->tick_model : "?");
    wb_str(w, ")");
}

wd_status prof_write_svg_merged(wd_prof *p, wd_ctx *ctx, FILE *f, const wd_prof_out *o,
                                const prof_tree *merged, wd_error *err)
{
    uint64_t *tot = NULL;
    int64_t *tns = NULL;
    wd_status st;
    if (!prof_totals(merged, &tot, &tns)) {
        st = wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    } else {
        prof_style ps = {.p = p, .tr = merged, .tot = tot, .o = o};
        svg_style style = {.ud = &ps,
                           .name = prof_frame_name,
                           .paint = prof_paint,
                           .info = prof_info,
                           .title = prof_title};
        st = svg_write(ctx, f, merged, tot, &style, err);
    }
    wd_free(merged->ctx, tot); /* prof_totals allocates from the tree's context */
    wd_free(merged->ctx, tns);
    return st;
}

wd_status prof_write_svg_in(wd_prof *p, wd_ctx *ctx, FILE *f, const wd_prof_out *o,
                            wd_error *err)
{
    uint32_t *groups = prof_display_groups_in(p, ctx);
    prof_tree merged;
    if (groups == NULL || !prof_merge_runs(p, ctx, groups, prof_depth(o->max_depth), &merged)) {
        wd_free(ctx, groups);
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    }
    wd_status st = prof_write_svg_merged(p, ctx, f, o, &merged, err);
    wd_free(ctx, groups);
    prof_tree_fini(&merged);
    return st;
}

wd_status wd_prof_write_svg(wd_prof *p, FILE *f, const wd_prof_out *o, wd_error *err)
{
    return prof_write_svg_in(p, p->ctx, f, o, err);
}

/* ---- the differential flamegraph (svg.h) ---- */

#define NEW_FILL  "rgb(255,165,40)"
#define SAME_FILL "rgb(222,222,218)"

typedef struct diff_vals {
    uint64_t self[2]; /* per side */
} diff_vals;

struct wd_svg_diff {
    wd_ctx *ctx;
    prof_tree tr;    /* node 0: the root; a node's sym is a name index */
    diff_vals *vals; /* per node */
    uint32_t vals_count, vals_cap;
    char *names; /* the frame names, NUL-terminated, back to back */
    size_t names_size, names_cap;
    size_t *name_at; /* per name: its offset in names */
    uint32_t name_count, name_cap;
    uint32_t *slots; /* names by hash: index + 1, 0 empty; slot_cap a power of 2 */
    uint32_t slot_cap;
    uint64_t ticks[2];
    /* while writing */
    uint64_t *tot[2]; /* per node and side: total ticks */
    const wd_svg_diff_opts *o;
    uint32_t gone; /* frames only OLD has (the topmost of such paths) */
    uint64_t gone_ticks;
};

wd_status wd_svg_diff_new(wd_ctx *ctx, wd_svg_diff **out, wd_error *err)
{
    *out = NULL;
    wd_svg_diff *d = wd_calloc(ctx, 1, sizeof *d);
    if (d == NULL)
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    d->ctx = ctx;
    prof_tree_init(&d->tr, ctx);
    if (prof_tree_new(&d->tr, PROF_NONE, PROF_NONE, 0) != 0 ||
        !wd_grow(ctx, (void **)&d->vals, &d->vals_cap, sizeof *d->vals, 64)) {
        wd_svg_diff_free(d);
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    }
    d->vals[0] = (diff_vals){{0, 0}};
    d->vals_count = 1;
    *out = d;
    return WD_OK;
}

void wd_svg_diff_free(wd_svg_diff *d)
{
    if (d == NULL)
        return;
    prof_tree_fini(&d->tr);
    wd_free(d->ctx, d->vals);
    wd_free(d->ctx, d->names);
    wd_free(d->ctx, d->name_at);
    wd_free(d->ctx, d->slots);
    wd_free(d->ctx, d);
}

uint64_t wd_svg_diff_ticks(const wd_svg_diff *d, wd_svg_side side)
{
    return d->ticks[side];
}

static bool rehash_names(wd_svg_diff *d)
{
    uint32_t cap = d->slot_cap ? d->slot_cap * 2 : 256;
    if (cap < d->slot_cap)
        return false;
    uint32_t *slots = wd_calloc(d->ctx, cap, sizeof *slots);
    if (slots == NULL)
        return false;
    for (uint32_t i = 0; i < d->name_count; i++) {
        const char *s = d->names + d->name_at[i];
        prof_slot_put(slots, cap, name_hash(s, strlen(s)), i + 1);
    }
    wd_free(d->ctx, d->slots);
    d->slots = slots;
    d->slot_cap = cap;
    return true;
}

/* The index of the name s[0..n) (no NUL in it), added when new; PROF_NONE on OOM. */
static uint32_t intern(wd_svg_diff *d, const char *s, size_t n)
{
    if ((d->name_count + 1) * 2 > d->slot_cap && !rehash_names(d))
        return PROF_NONE;
    uint32_t mask = d->slot_cap - 1, h = name_hash(s, n) & mask;
    for (uint32_t k; (k = d->slots[h]) != 0; h = (h + 1) & mask) {
        const char *t = d->names + d->name_at[k - 1];
        if (strncmp(t, s, n) == 0 && t[n] == '\0')
            return k - 1;
    }
    if (d->name_count >= PROF_NONE - 1 ||
        (d->name_count == d->name_cap && !wd_grow(d->ctx, (void **)&d->name_at, &d->name_cap,
                                                  sizeof *d->name_at, (uint64_t)d->name_count + 1)))
        return PROF_NONE;
    if (n + 1 > d->names_cap - d->names_size) {
        size_t cap = d->names_cap ? d->names_cap : 4096;
        while (cap - d->names_size < n + 1) {
            if (cap > SIZE_MAX / 2)
                return PROF_NONE;
            cap *= 2;
        }
        char *names = wd_realloc(d->ctx, d->names, cap);
        if (names == NULL)
            return PROF_NONE;
        d->names = names;
        d->names_cap = cap;
    }
    memcpy(d->names + d->names_size, s, n);
    d->names[d->names_size + n] = '\0';
    d->name_at[d->name_count] = d->names_size;
    d->names_size += n + 1;
    d->slots[h] = ++d->name_count;
    return d->name_count - 1;
}

/* The child of `parent` named s[0..n), created when new; PROF_NONE on OOM. Every node has
 * its figures: vals_count == tr.count. */
static uint32_t diff_child(wd_svg_diff *d, uint32_t parent, const char *s, size_t n)
{
    uint32_t sym = intern(d, s, n);
    if (sym == PROF_NONE ||
        (d->tr.count >= d->vals_cap && !wd_grow(d->ctx, (void **)&d->vals, &d->vals_cap,
                                                sizeof *d->vals, (uint64_t)d->tr.count + 1)))
        return PROF_NONE;
    uint32_t node = prof_tree_child(&d->tr, parent, sym, 0);
    if (node != PROF_NONE && node == d->vals_count) /* new nodes come at the end */
        d->vals[d->vals_count++] = (diff_vals){{0, 0}};
    return node;
}

static wd_status add_line(wd_svg_diff *d, wd_svg_side side, const char *s, size_t n, size_t at,
                          uint64_t line, wd_error *err)
{
    while (n > 0 && (s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    if (n == 0)
        return WD_OK;
    if (memchr(s, '\0', n) != NULL)
        return wd_fail(err, WD_ERR_MALFORMED, at, "line %llu: NUL byte in a folded stack",
                       (unsigned long long)line);
    size_t sp = n;
    while (sp > 0 && s[sp - 1] != ' ')
        sp--;
    uint64_t ticks = 0;
    bool digits = sp > 1 && sp < n;
    for (size_t i = sp; digits && i < n; i++) {
        unsigned v = (unsigned)(s[i] - '0');
        if (v > 9 || ticks > (UINT64_MAX - v) / 10)
            digits = false;
        else
            ticks = ticks * 10 + v;
    }
    if (!digits)
        return wd_fail(err, WD_ERR_MALFORMED, at,
                       "line %llu: expected `frame;frame;... TICKS` (folded stacks)",
                       (unsigned long long)line);
    if (ticks == 0)
        return WD_OK;
    if (ticks > UINT64_MAX - d->ticks[side])
        return wd_fail(err, WD_ERR_MALFORMED, at, "line %llu: the ticks add up past 2^64",
                       (unsigned long long)line);
    size_t end = sp - 1; /* the stack is s[0..end) */
    uint32_t node = 0;
    for (size_t a = 0; a <= end;) {
        const char *semi = memchr(s + a, ';', end - a);
        size_t b = semi != NULL ? (size_t)(semi - s) : end;
        if (b == a)
            return wd_fail(err, WD_ERR_MALFORMED, at + a, "line %llu: empty frame name",
                           (unsigned long long)line);
        node = diff_child(d, node, s + a, b - a);
        if (node == PROF_NONE)
            return wd_fail(err, WD_ERR_NOMEM, at, "out of memory");
        a = b + 1;
    }
    d->vals[node].self[side] += ticks; /* at most d->ticks[side] + ticks: no overflow */
    d->ticks[side] += ticks;
    return WD_OK;
}

wd_status wd_svg_diff_add(wd_svg_diff *d, wd_svg_side side, const char *text, size_t size,
                          wd_error *err)
{
    uint64_t line = 0;
    for (size_t at = 0; at < size;) {
        const char *nl = memchr(text + at, '\n', size - at);
        size_t end = nl != NULL ? (size_t)(nl - text) : size;
        WD_TRY(add_line(d, side, text + at, end - at, at, ++line, err));
        at = end + 1;
    }
    return WD_OK;
}

/* "B -> A<unit> (+D, +P%)": the percent truncated to 2 decimals, as the table has it. */
static void wb_change(wbuf *w, uint64_t before, uint64_t after, const char *unit)
{
    wb_u64(w, before);
    wb_str(w, " -> ");
    wb_u64(w, after);
    wb_str(w, unit);
    uint64_t c = after >= before ? after - before : before - after;
    char sign = after >= before ? '+' : '-';
    wb_str(w, " (");
    wb_char(w, sign);
    wb_u64(w, c);
    wb_str(w, ", ");
    if (before == 0) {
        wb_str(w, c != 0 ? "+inf%)" : "+0.00%)");
        return;
    }
    uint64_t h =
        c <= UINT64_MAX / 10000 ? c * 10000 / before : (uint64_t)((double)c / (double)before * 1e4);
    char d[3] = {'.', (char)('0' + h / 10 % 10), (char)('0' + h % 10)};
    wb_char(w, h != 0 ? sign : '+');
    wb_u64(w, h / 100);
    wb_bytes(w, d, 3);
    wb_str(w, "%)");
}

static const char *diff_name(void *ud, uint32_t node)
{
    const wd_svg_diff *d = ud;
    return d->names + d->name_at[d->tr.nodes[node].sym];
}

/* Red when the self ticks grew, blue when they shrank: the intensity goes with the square
 * root of the relative change (capped at 100%), from a visible 0.15 for the smallest. */
static const char *diff_paint(void *ud, uint32_t node, char *fill, size_t size)
{
    const wd_svg_diff *d = ud;
    if (d->tot[WD_SVG_OLD][node] == 0) {
        snprintf(fill, size, NEW_FILL);
        return "new";
    }
    uint64_t before = d->vals[node].self[WD_SVG_OLD], after = d->vals[node].self[WD_SVG_NEW];
    if (before == after) {
        snprintf(fill, size, SAME_FILL);
        return "same";
    }
    uint64_t c = after > before ? after - before : before - after;
    double rel = before == 0 ? 1.0 : (double)c / (double)before;
    double t = 0.15 + 0.85 * sqrt(rel < 1.0 ? rel : 1.0);
    if (after > before) {
        rgb(fill, size, (int)(255 - 40 * t), (int)(230 - 180 * t), (int)(230 - 180 * t));
        return "grow";
    }
    rgb(fill, size, (int)(230 - 180 * t), (int)(230 - 150 * t), (int)(255 - 20 * t));
    return "shrink";
}

/* "NAME: B -> A ticks (+D, +P%); self B -> A (+D, +P%)", or for a new frame
 * "NAME: new, A ticks; self A". Tooltip and details line alike. */
static void diff_info(void *ud, wbuf *w, uint32_t node, uint64_t all, bool brief)
{
    (void)all;
    (void)brief;
    const wd_svg_diff *d = ud;
    const diff_vals *v = &d->vals[node];
    if (d->tot[WD_SVG_OLD][node] == 0) {
        wb_str(w, ": new, ");
        wb_u64(w, d->tot[WD_SVG_NEW][node]);
        wb_str(w, " ticks; self ");
        wb_u64(w, v->self[WD_SVG_NEW]);
        return;
    }
    wb_str(w, ": ");
    wb_change(w, d->tot[WD_SVG_OLD][node], d->tot[WD_SVG_NEW][node], " ticks");
    wb_str(w, "; self ");
    wb_change(w, v->self[WD_SVG_OLD], v->self[WD_SVG_NEW], "");
}

static void diff_title(void *ud, wbuf *w, uint64_t all)
{
    (void)all;
    const wd_svg_diff *d = ud;
    wb_str(w, "Differential flame graph: ");
    wb_change(w, d->ticks[WD_SVG_OLD], d->ticks[WD_SVG_NEW], " ticks");
    if (d->o->tick_model != NULL) {
        wb_str(w, ", ");
        xml_text(w, d->o->tick_model);
    }
}

#define LEGEND_CHAR_W 6.6

static double legend_item(wbuf *w, double x, const char *fill, const char *cls, const char *text)
{
    char b[512];
    snprintf(b, sizeof b,
             "<g class=\"%s\"><rect x=\"%.0f\" y=\"53\" width=\"12\" height=\"12\" "
             "fill=\"%s\"/></g><text x=\"%.0f\" y=\"64\">%s</text>\n",
             cls, x, fill, x + 16, text);
    wb_str(w, b);
    return x + 16 + LEGEND_CHAR_W * (double)strlen(text) + 12;
}

/* Under the title: which profiles, then the colours. */
static void diff_legend(void *ud, wbuf *w)
{
    const wd_svg_diff *d = ud;
    char b[256];
    snprintf(b, sizeof b, "<g id=\"legend\">\n<text x=\"%d\" y=\"44\">old: ", (int)PAD);
    wb_str(w, b);
    xml_text(w, d->o->old_name ? d->o->old_name : "?");
    wb_str(w, " (");
    wb_u64(w, d->ticks[WD_SVG_OLD]);
    wb_str(w, " ticks), new: ");
    xml_text(w, d->o->new_name ? d->o->new_name : "?");
    wb_str(w, " (");
    wb_u64(w, d->ticks[WD_SVG_NEW]);
    wb_str(w, " ticks)</text>\n");
    double x = PAD;
    x = legend_item(w, x, "rgb(215,50,50)", "grow", "self ticks grew");
    x = legend_item(w, x, "rgb(50,80,235)", "shrink", "shrank");
    x = legend_item(w, x, SAME_FILL, "same", "unchanged");
    x = legend_item(w, x, NEW_FILL, "new", "new call path");
    snprintf(b, sizeof b,
             "<text x=\"%.0f\" y=\"64\">(deeper: larger relative change; width: ticks in "
             "the new profile",
             x);
    wb_str(w, b);
    if (d->gone != 0) {
        wb_str(w, "; not drawn: ");
        wb_u64(w, d->gone);
        wb_str(w, d->gone == 1 ? " call path only in the old one, "
                               : " call paths only in the old one, ");
        wb_u64(w, d->gone_ticks);
        wb_str(w, " ticks");
    }
    wb_str(w, ")</text>\n</g>\n");
}

wd_status wd_svg_diff_write(wd_svg_diff *d, FILE *f, const wd_svg_diff_opts *o, wd_error *err)
{
    uint32_t n = d->tr.count;
    uint64_t *tot = wd_alloc(d->ctx, 2 * (size_t)n * sizeof *tot);
    if (tot == NULL)
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    d->tot[WD_SVG_OLD] = tot;
    d->tot[WD_SVG_NEW] = tot + n;
    for (int s = 0; s < 2; s++) {
        for (uint32_t i = 0; i < n; i++)
            d->tot[s][i] = d->vals[i].self[s];
        for (uint32_t i = n; i-- > 1;) /* children come after their parents */
            d->tot[s][d->tr.nodes[i].parent] += d->tot[s][i];
    }
    d->gone = 0;
    d->gone_ticks = 0;
    for (uint32_t i = 1; i < n; i++) {
        uint32_t par = d->tr.nodes[i].parent;
        if (d->tot[WD_SVG_NEW][i] == 0 && d->tot[WD_SVG_OLD][i] != 0 &&
            (par == 0 || d->tot[WD_SVG_NEW][par] != 0)) {
            d->gone++;
            d->gone_ticks += d->tot[WD_SVG_OLD][i];
        }
    }
    d->o = o;
    svg_style style = {.ud = d,
                       .name = diff_name,
                       .paint = diff_paint,
                       .info = diff_info,
                       .title = diff_title,
                       .extra = diff_legend,
                       .extra_h = 36,
                       .css = ".new rect { stroke: rgb(150,70,0); stroke-width: 1; }\n"
                              "#legend rect { stroke: #666; stroke-width: 0.5; }\n"};
    wd_status st = svg_write(d->ctx, f, &d->tr, d->tot[WD_SVG_NEW], &style, err);
    wd_free(d->ctx, tot);
    d->tot[0] = d->tot[1] = NULL;
    d->o = NULL;
    return st;
}
