/* fuzz.c: what the fuzz targets share (fuzz.h). */
#include "tests/fuzz/fuzz.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static FILE *first_stderr;
static char dir[512];

FILE *wd_fuzz_silence(void)
{
    if (first_stderr != NULL)
        return first_stderr;
    FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
    int fd = open("/dev/null", O_RDONLY);
    if (out == NULL || in == NULL || fd < 0 || dup2(fd, STDIN_FILENO) < 0) {
        perror("fuzz: /dev/null");
        abort();
    }
    close(fd);
    first_stderr = stderr;
    /* glibc's standard streams are variables (its manual says they may be assigned): the
     * code under test prints through them, libFuzzer through its own copy of stderr. */
    stdout = out;
    stderr = out;
    stdin = in;
    return first_stderr;
}

__attribute__((weak)) void wd_fuzz_setup(void)
{
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    wd_fuzz_silence();
    wd_fuzz_setup();
    return 0;
}

void wd_fuzz_fail(const char *fmt, ...)
{
    FILE *f = first_stderr != NULL ? first_stderr : stderr;
    va_list ap;
    va_start(ap, fmt);
    fputs("fuzz: ", f);
    vfprintf(f, fmt, ap);
    fputc('\n', f);
    va_end(ap);
    fflush(f);
    abort();
}

void wd_fuzz_check_freed(const wd_ctx *ctx, const char *what)
{
    if (ctx->live != 0)
        wd_fuzz_fail("%s: %zu allocations not freed", what, ctx->live);
}

/* Removes what is in `path` (a directory), and the directory itself when `self`. */
static void remove_tree(const char *path, bool self)
{
    DIR *d = opendir(path);
    if (d != NULL) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char sub[1024];
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            struct stat sb;
            if (lstat(sub, &sb) == 0 && S_ISDIR(sb.st_mode))
                remove_tree(sub, true);
            else
                unlink(sub);
        }
        closedir(d);
    }
    if (self)
        rmdir(path);
}

static void remove_dir(void)
{
    if (dir[0] != '\0')
        remove_tree(dir, true);
}

const char *wd_fuzz_dir(void)
{
    if (dir[0] != '\0')
        return dir;
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/wd-fuzz-XXXXXX",
             tmp != NULL && tmp[0] != '\0' && strlen(tmp) < 400 ? tmp : "/tmp");
    if (mkdtemp(dir) == NULL)
        wd_fuzz_fail("cannot create %s", dir);
    atexit(remove_dir);
    return dir;
}

void wd_fuzz_empty_dir(void)
{
    if (dir[0] != '\0')
        remove_tree(dir, false);
}

const char *wd_fuzz_file(const char *name, const uint8_t *data, size_t size)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s", wd_fuzz_dir(), name);
    /* A new file each time: ext4 writes a file truncated and rewritten back to disk when it
     * is closed (auto_da_alloc), which made a run wait 3 ms for each input. */
    unlink(path);
    FILE *f = fopen(path, "wb");
    if (f == NULL || (size > 0 && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        wd_fuzz_fail("cannot write %s", path);
    return path;
}
