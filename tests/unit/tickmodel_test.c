/* tickmodel_test.c: the built-in models and the model-file loader (vm/tickmodel.c). */
#include "decode/code.h"
#include "tests/unit/test.h"
#include "vm/tickmodel.h"

#include <stdlib.h>
#include <unistd.h>

/* Writes `text` to a fresh file in a private temporary directory; its path goes to `path`
 * (the file is named `name`). Returns false when the file cannot be written. */
static bool write_model(const char *name, const char *text, char *path, size_t cap)
{
    static char dir[64];
    if (dir[0] == '\0') {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/wd_tickmodel_XXXXXX",
                 tmp != NULL && strlen(tmp) < 32 ? tmp : "/tmp");
        if (mkdtemp(dir) == NULL) {
            dir[0] = '\0';
            return false;
        }
    }
    snprintf(path, cap, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return false;
    fputs(text, f);
    return fclose(f) == 0;
}

/* Loads `text` as a model file named `name`; the file is removed afterwards. */
static wd_status load_text(const char *name, const char *text, wd_costs *out, wd_error *err)
{
    char path[160];
    wd_error_clear(err);
    if (!write_model(name, text, path, sizeof path))
        return WD_ERR_IO;
    wd_status st = wd_tickmodel_load(path, out, err);
    unlink(path);
    return st;
}

static uint32_t op_cost(const wd_costs *c, uint32_t prefix, uint32_t code)
{
    return c->op[wd_cost_index(prefix, code)];
}

TEST(tickmodel_flat1_builtin)
{
    const wd_costs *c = wd_tickmodel_builtin("flat-1");
    CHECK(c != NULL);
    CHECK(strcmp(c->name, "flat-1") == 0);
    CHECK(wd_tickmodel_builtin("flat-1") == c);
    for (uint32_t op = 0; op < WD_OP_COUNT; op++) {
        const wd_opinfo *i = &wd_op_info[op];
        if (i->kind != WD_KIND_INTERNAL)
            CHECK_EQ(op_cost(c, i->prefix, i->code), 1);
    }
    CHECK_EQ(op_cost(c, 0, 0x6A), 1);  /* i32.add */
    CHECK_EQ(op_cost(c, 0, 0x0B), 1);  /* end */
    CHECK_EQ(op_cost(c, 0xFC, 17), 1); /* table.fill */
    CHECK_EQ(op_cost(c, 0, 0x06), 0);  /* not an opcode */
    CHECK_EQ(c->bulk_per_byte, 1);
    CHECK_EQ(c->bulk_per_elem, 1);
    CHECK_EQ(c->host_per_byte, 1);
    CHECK_EQ(c->decode_per_insn, 1);
    CHECK_EQ(c->decode_per_custom, 1);
    CHECK_EQ(c->link_base, 1);
    CHECK_EQ(c->link_per_import, 1);
    CHECK_EQ(c->init_per_global, 1);
    CHECK_EQ(c->init_per_elem, 1);
    CHECK_EQ(c->init_per_data_byte, 1);
    CHECK_EQ(c->init_base, 0);
    CHECK_EQ(c->call_per_param, 0);
    CHECK_EQ(c->call_entry, 0);
    CHECK_EQ(c->branch_per_value, 0);
    CHECK_EQ(c->grow_per_page, 0);
    CHECK_EQ(c->host_per_access, 0);
}

TEST(tickmodel_unknown_builtin)
{
    CHECK(wd_tickmodel_builtin("no-such-model") == NULL);
    CHECK(wd_tickmodel_builtin(NULL) == NULL);
    CHECK(wd_tickmodel_builtin("") == NULL);
}

TEST(tickmodel_load_file)
{
    wd_costs c;
    wd_error err;
    const char *text = "{\"name\": \"my-model\", \"base\": \"flat-1\",\n"
                       " \"costs\": {\"i32.add\": 3, \"call_indirect\": 5,\n"
                       "           \"call_per_param\": 1, \"bulk_per_byte\": 2,\n"
                       "           \"select\": 7, \"i32.trunc_sat_f32_s\": 9,\n"
                       "           \"init_base\": 4294967295}}\n";
    CHECK_EQ(load_text("m.json", text, &c, &err), WD_OK);
    CHECK(strcmp(c.name, "my-model") == 0);
    CHECK_EQ(op_cost(&c, 0, 0x6A), 3);
    CHECK_EQ(op_cost(&c, 0, 0x11), 5);
    CHECK_EQ(op_cost(&c, 0, 0x1B), 7); /* select */
    CHECK_EQ(op_cost(&c, 0, 0x1C), 7); /* select t* */
    CHECK_EQ(op_cost(&c, 0xFC, 0), 9);
    CHECK_EQ(op_cost(&c, 0, 0x6B), 1); /* i32.sub: from the base */
    CHECK_EQ(c.call_per_param, 1);
    CHECK_EQ(c.bulk_per_byte, 2);
    CHECK_EQ(c.bulk_per_elem, 1);
    CHECK_EQ(c.init_base, UINT32_MAX);
}

TEST(tickmodel_defaults)
{
    wd_costs c;
    wd_error err;
    CHECK_EQ(load_text("cheap-adds.json", "{\"costs\": {\"i64.add\": 0}}", &c, &err), WD_OK);
    CHECK(strcmp(c.name, "cheap-adds") == 0); /* from the file name */
    CHECK_EQ(op_cost(&c, 0, 0x7C), 0);
    CHECK_EQ(op_cost(&c, 0, 0x6A), 1); /* the default base is flat-1 */
    CHECK_EQ(load_text("empty.json", "{}", &c, &err), WD_OK);
    CHECK(strcmp(c.name, "empty") == 0);
    CHECK_EQ(c.link_base, 1);
}

TEST(tickmodel_unknown_name_names_line)
{
    wd_costs c;
    wd_error err;
    const char *text = "{\n"
                       "  \"name\": \"x\",\n"
                       "  \"costs\": {\n"
                       "    \"i32.add\": 2,\n"
                       "    \"i32.addd\": 3\n"
                       "  }\n"
                       "}\n";
    CHECK_EQ(load_text("bad.json", text, &c, &err), WD_ERR_USAGE);
    CHECK_STR_CONTAINS(err.msg, "bad.json:5: unknown cost name \"i32.addd\"");
    CHECK_EQ(c.op[wd_cost_index(0, 0x6A)], 0); /* out is not set on failure */
    CHECK(c.name[0] == '\0');
}

TEST(tickmodel_internal_names_are_not_costs)
{
    wd_costs c;
    wd_error err;
    CHECK_EQ(load_text("i.json", "{\"costs\": {\"meter\": 1}}", &c, &err), WD_ERR_USAGE);
    CHECK_STR_CONTAINS(err.msg, "i.json:1: unknown cost name \"meter\"");
    CHECK_EQ(load_text("i.json", "{\"costs\": {\"name\": 1}}", &c, &err), WD_ERR_USAGE);
    CHECK_STR_CONTAINS(err.msg, "unknown cost name \"name\"");
}

TEST(tickmodel_key_line_skips_lookalikes)
{
    wd_costs c;
    wd_error err;
    /* "nope" appears first as a string value and as a key elsewhere; the error must
     * point at the key inside "costs", and escapes in keys are decoded. */
    const char *text = "{\"description\": \"nope\",\n"
                       " \"name\": \"nope\",\n"
                       " \"costs\": {\"i32\\u002eadd\": 1,\n"
                       "   \"i64.add\": 1,\n"
                       "   \"n\\u006fpe\": 2}}\n";
    CHECK_EQ(load_text("esc.json", text, &c, &err), WD_ERR_USAGE);
    CHECK_STR_CONTAINS(err.msg, "esc.json:5: unknown cost name \"nope\"");
}

TEST(tickmodel_syntax_error_has_line_and_column)
{
    wd_costs c;
    wd_error err;
    const char *text = "{\"costs\": {\n  \"i32.add\": 1,\n  \"i32.sub\" 2\n}}\n";
    CHECK_EQ(load_text("syn.json", text, &c, &err), WD_ERR_USAGE);
    CHECK_STR_CONTAINS(err.msg, "syn.json:3:");
    CHECK_EQ(load_text("dup.json", "{\"costs\": {\"nop\": 1,\n \"nop\": 2}}", &c, &err),
             WD_ERR_USAGE);
    CHECK_STR_CONTAINS(err.msg, "dup.json:2:");
}

TEST(tickmodel_bad_values)
{
    wd_costs c;
    wd_error err;
    CHECK_EQ(load_text("v.json", "{\"costs\": {\n\"nop\": -1}}", &c, &err), WD_ERR_USAGE);
    CHECK_STR_CONTAINS(err.msg, "v.json:2: expected an integer from 0 to 4294967295");
    CHECK_EQ(load_text("v.json", "{\"costs\": {\"nop\": 1.5}}", &c, &err), WD_ERR_USAGE);
    CHECK_STR_CONTAINS(err.msg, "\"nop\"");
    CHECK_EQ(load_text("v.json", "{\"costs\": {\"nop\": 4294967296}}", &c, &err), WD_ERR_USAGE);
    CHECK_EQ(load_text("v.json", "{\"costs\": {\"nop\": \"1\"}}", &c, &err), WD_ERR_USAGE);
    CHECK_EQ(load_text("v.json", "{\"costs\": [1]}", &c, &err), WD_ERR_USAGE);
    CHECK_STR_CONTAINS(err.msg, "\"costs\"");
    CHECK_EQ(load_text("v.json", "[]", &c, &err), WD_ERR_USAGE);
    CHECK_EQ(load_text("v.json", "{\"name\": 3}", &c, &err), WD_ERR_USAGE);
    CHECK_EQ(load_text("v.json", "{\"name\": \"\"}", &c, &err), WD_ERR_USAGE);
    CHECK_EQ(load_text("v.json", "{\"name\": \"0123456789012345678901234567890123\"}", &c, &err),
             WD_ERR_USAGE);
    CHECK_EQ(load_text("v.json", "{\n\n\"base\": \"pvm-0\"}", &c, &err), WD_ERR_USAGE);
    CHECK_STR_CONTAINS(err.msg, "v.json:3: unknown built-in model");
    CHECK_EQ(load_text("v.json", "{\"model\": \"flat-1\"}", &c, &err), WD_ERR_USAGE);
    CHECK_STR_CONTAINS(err.msg, "unknown key \"model\"");
}

TEST(tickmodel_missing_file)
{
    wd_costs c;
    wd_error err;
    wd_error_clear(&err);
    CHECK_EQ(wd_tickmodel_load("/nonexistent/model.json", &c, &err), WD_ERR_IO);
    CHECK_STR_CONTAINS(err.msg, "/nonexistent/model.json");
    wd_error_clear(&err);
    CHECK_EQ(wd_tickmodel_get("no-such-model", &c, &err), WD_ERR_IO);
}

TEST(tickmodel_get_builtin_or_file)
{
    wd_costs c;
    wd_error err;
    wd_error_clear(&err);
    CHECK_EQ(wd_tickmodel_get("flat-1", &c, &err), WD_OK);
    CHECK(strcmp(c.name, "flat-1") == 0);
    char path[160];
    CHECK(write_model("g.json", "{\"name\": \"g\", \"costs\": {\"call\": 10}}", path, sizeof path));
    CHECK_EQ(wd_tickmodel_get(path, &c, &err), WD_OK);
    unlink(path);
    CHECK(strcmp(c.name, "g") == 0);
    CHECK_EQ(op_cost(&c, 0, 0x10), 10);
}

/* Every name the loader lists is accepted, and sets a distinct value. */
TEST(tickmodel_every_listed_name_loads)
{
    uint32_t n = wd_tickmodel_name_count();
    CHECK(n > 190);
    CHECK(wd_tickmodel_name(n) == NULL);
    size_t cap = 64 * (size_t)n + 64, len = 0;
    char *text = malloc(cap);
    CHECK(text != NULL);
    len += (size_t)snprintf(text + len, cap - len, "{\"costs\": {\n");
    for (uint32_t i = 0; i < n; i++)
        len += (size_t)snprintf(text + len, cap - len, "%s\"%s\": %u\n", i ? "," : "",
                                wd_tickmodel_name(i), i + 100);
    snprintf(text + len, cap - len, "}}\n");
    wd_costs c;
    wd_error err;
    wd_status st = load_text("all.json", text, &c, &err);
    free(text);
    CHECK_EQ(st, WD_OK);
    CHECK_EQ(op_cost(&c, 0, 0x00), 100); /* unreachable is the first name */
    CHECK_EQ(c.init_per_data_byte, n - 1 + 100);
}
