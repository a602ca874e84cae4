/* load.c: reading module files for the subcommands, converting text modules with wabt. */
#include "cli/cli.h"

#include "base/file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* A module file larger than this is refused (4 GiB is the format's own limit). */
#define MAX_MODULE_SIZE ((size_t)1 << 32)

static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static wd_status read_binary(wd_ctx *ctx, const char *path, const char *shown, uint8_t **out,
                             size_t *out_size, wd_error *err)
{
    return wd_read_file(ctx, path, shown, MAX_MODULE_SIZE, out, out_size, err);
}

/* Runs `wat2wasm --debug-names path -o out`; its own messages go to our stderr. */
static wd_status run_wat2wasm(const char *path, const char *out, wd_error *err)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        return wd_fail(err, WD_ERR_IO, 0, "%s: cannot run wat2wasm: %s", path, strerror(errno));
    if (pid == 0) {
        char arg[4200]; /* a path that starts with '-' must not read as an option */
        snprintf(arg, sizeof arg, "%s%s", path[0] == '-' ? "./" : "", path);
        execlp("wat2wasm", "wat2wasm", "--debug-names", arg, "-o", out, (char *)NULL);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            return wd_fail(err, WD_ERR_IO, 0, "%s: wat2wasm: %s", path, strerror(errno));
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        return wd_fail(err, WD_ERR_IO, 0,
                       "%s: a text module needs wat2wasm (Debian package wabt: make deps)", path);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return wd_fail(err, WD_ERR_IO, 0, "%s: wat2wasm could not convert it", path);
    return WD_OK;
}

static wd_status read_text(wd_ctx *ctx, const char *path, uint8_t **out, size_t *size,
                           wd_error *err)
{
    const char *tmp = getenv("TMPDIR");
    char dir[512], wasm[600];
    snprintf(dir, sizeof dir, "%s/wasmdbg-XXXXXX",
             tmp != NULL && *tmp != '\0' && strlen(tmp) < 400 ? tmp : "/tmp");
    if (mkdtemp(dir) == NULL)
        return wd_fail(err, WD_ERR_IO, 0, "cannot make a temporary directory in %s: %s",
                       tmp != NULL ? tmp : "/tmp", strerror(errno));
    snprintf(wasm, sizeof wasm, "%s/module.wasm", dir);
    wd_status st = run_wat2wasm(path, wasm, err);
    if (st == WD_OK)
        st = read_binary(ctx, wasm, path, out, size, err);
    unlink(wasm);
    rmdir(dir);
    return st;
}

/* A .hex kernel: the hex encoding of the binary (the reference debugger's third format);
 * white space is allowed anywhere, anything else is an error naming its offset. */
static wd_status read_hex(wd_ctx *ctx, const char *path, uint8_t **out, size_t *out_size,
                          wd_error *err)
{
    uint8_t *text;
    size_t n;
    WD_TRY(read_binary(ctx, path, path, &text, &n, err));
    size_t k = 0;
    int high = -1;
    for (size_t i = 0; i < n; i++) {
        if (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t')
            continue;
        int d = wd_hex_digit(text[i]);
        if (d < 0) {
            wd_free(ctx, text);
            return wd_fail(err, WD_ERR_IO, i, "%s:0x%zx: expected a hexadecimal digit", path, i);
        }
        if (high < 0) {
            high = d;
        } else {
            text[k++] = (uint8_t)(high << 4 | d); /* k <= i / 2: writes behind the reader */
            high = -1;
        }
    }
    if (high >= 0) {
        wd_free(ctx, text);
        return wd_fail(err, WD_ERR_IO, n, "%s: odd number of hexadecimal digits", path);
    }
    *out = text;
    *out_size = k;
    return WD_OK;
}

wd_status wd_cli_read_module(wd_ctx *ctx, const char *path, uint8_t **out, size_t *size,
                             wd_error *err)
{
    *out = NULL;
    *size = 0;
    if (has_suffix(path, ".wat") || has_suffix(path, ".wast")) {
        if (access(path, R_OK) != 0)
            return wd_fail(err, WD_ERR_IO, 0, "%s: cannot open: %s", path, strerror(errno));
        return read_text(ctx, path, out, size, err);
    }
    if (has_suffix(path, ".hex"))
        return read_hex(ctx, path, out, size, err);
    return read_binary(ctx, path, path, out, size, err);
}
