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
    CHECK_EQ(c->bulk_copy_per_byte, 1);
    CHECK_EQ(c->bulk_per_elem, 1);
    CHECK_EQ(c->bulk_copy_per_elem, 1);
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
    CHECK_EQ(c->label_step, 0);
    CHECK_EQ(c->per_value, 0);
    CHECK_EQ(c->frame_return, 0);
    CHECK(!c->pvm_phases);
    CHECK_EQ(c->grow_per_page, 0);
    CHECK_EQ(c->host_per_access, 0);
}

/* The default model exists under its name; its values are vm/tickmodel.c's table (the
 * Octez PVM's rules), checked against the PVM itself by tests/octez. */
TEST(tickmodel_pvm_builtin)
{
    const wd_costs *c = wd_tickmodel_builtin("pvm");
    CHECK(c != NULL);
    CHECK(strcmp(c->name, "pvm") == 0);
    CHECK(wd_tickmodel_builtin("pvm") == c);
    CHECK(c->pvm_phases);
    CHECK(c->label_step != 0);
    CHECK(c->call_entry != 0);
}

TEST(tickmodel_unknown_builtin)
{
    CHECK(wd_tickmodel_builtin("no-such-model") == NULL);
    CHECK(wd_tickmodel_builtin(NULL) == NULL);
    CHECK(wd_tickmodel_builtin("") == NULL);
    CHECK(wd_tickmodel_builtin("pvm-2.0") == NULL); /* retired */
}

TEST(tickmodel_retired_names)
{
    const char *why = wd_tickmodel_retired("pvm-2.0");
    CHECK(why != NULL);
    CHECK_STR_CONTAINS(why, "was an approximation of the PVM's ticks that wasmdbg no longer has");
    CHECK_STR_CONTAINS(why, "the default model, pvm, counts exactly as the Octez PVM does");
    CHECK(wd_tickmodel_retired("pvm") == NULL);
    CHECK(wd_tickmodel_retired("flat-1") == NULL);
    CHECK(wd_tickmodel_retired("pvm-2.0 ") == NULL);
    CHECK(wd_tickmodel_retired("") == NULL);
    CHECK(wd_tickmodel_retired(NULL) == NULL);
}

/* --tick-model pvm-2.0 (any command): refused with the reason, never taken for a file. */
TEST(tickmodel_get_retired_is_usage_error)
{
    wd_costs c;
    wd_error err;
    memset(&c, 0xAB, sizeof c);
    wd_error_clear(&err);
    CHECK_EQ(wd_tickmodel_get("pvm-2.0", &c, &err), WD_ERR_USAGE);
    CHECK_STR_CONTAINS(err.msg, "tick model pvm-2.0 was an approximation of the PVM's ticks "
                                "that wasmdbg no longer has; the default model, pvm, counts "
                                "exactly as the Octez PVM does");
    CHECK(c.name[0] == '\0'); /* out is cleared */
    CHECK_EQ(c.label_step, 0);
}

TEST(tickmodel_load_file)
{
    wd_costs c;
    wd_error err;
    const char *text = "{\"name\": \"my-model\", \"base\": \"flat-1\",\n"
                       " \"costs\": {\"i32.add\": 3, \"call_indirect\": 5,\n"
                       "           \"bulk_copy_per_byte\": 1, \"bulk_per_byte\": 2,\n"
                       "           \"select\": 7, \"i32.trunc_sat_f32_s\": 9,\n"
                       "           \"grow_per_page\": 4294967295}}\n";
    CHECK_EQ(load_text("m.json", text, &c, &err), WD_OK);
    CHECK(strcmp(c.name, "my-model") == 0);
    CHECK_EQ(op_cost(&c, 0, 0x6A), 3);
    CHECK_EQ(op_cost(&c, 0, 0x11), 5);
    CHECK_EQ(op_cost(&c, 0, 0x1B), 7); /* select */
    CHECK_EQ(op_cost(&c, 0, 0x1C), 7); /* select t* */
    CHECK_EQ(op_cost(&c, 0xFC, 0), 9);
    CHECK_EQ(op_cost(&c, 0, 0x6B), 1); /* i32.sub: from the base */
    CHECK_EQ(c.bulk_copy_per_byte, 1);
    CHECK_EQ(c.bulk_per_byte, 2);
    CHECK_EQ(c.bulk_per_elem, 1);
    CHECK_EQ(c.grow_per_page, UINT32_MAX);
    CHECK_EQ(c.link_base, 1); /* phases: flat-1's */
    CHECK(!c.pvm_phases);
}

/* A file changes costs on top of pvm; its structural rules stay. */
TEST(tickmodel_load_file_on_pvm)
{
    wd_costs c;
    wd_error err;
    const char *text = "{\"base\": \"pvm\", \"costs\": {\"i32.mul\": 12, \"memory.copy\": 7,\n"
                       " \"bulk_copy_per_byte\": 50, \"host_per_access\": 2}}\n";
    CHECK_EQ(load_text("heavy-mul.json", text, &c, &err), WD_OK);
    const wd_costs *pvm = wd_tickmodel_builtin("pvm");
    CHECK(strcmp(c.name, "heavy-mul") == 0);
    CHECK_EQ(op_cost(&c, 0, 0x6C), 12);
    CHECK_EQ(op_cost(&c, 0xFC, 10), 7);
    CHECK_EQ(op_cost(&c, 0, 0x6A), op_cost(pvm, 0, 0x6A));
    CHECK_EQ(c.bulk_copy_per_byte, 50);
    CHECK_EQ(c.host_per_access, 2);
    CHECK_EQ(c.label_step, pvm->label_step);
    CHECK_EQ(c.call_entry, pvm->call_entry);
    CHECK(c.pvm_phases);
}

/* The structural costs are the base model's rules: setting one names the file, the line
 * and the key, and says why; under either base. */
TEST(tickmodel_structural_costs_are_refused)
{
    // clang-format off
    static const char *const names[] = {
        "label_step",         "concat",           "per_value",            "per_outer",
        "frame_return",       "call_entry",       "call_per_param",       "call_per_local",
        "call_open",          "host_entry",       "final_step",           "pvm_phases",
        "decode_per_section", "decode_per_item",  "decode_per_insn",      "decode_per_name_char",
        "decode_per_data_byte", "decode_per_custom", "link_base",         "link_per_import",
        "init_base",          "init_per_global",  "init_per_elem",        "init_per_data_byte",
    };
    // clang-format on
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char text[200], want[160];
        snprintf(text, sizeof text, "{\"name\": \"s\",\n \"costs\": {\"nop\": 1,\n  \"%s\": 1}}\n",
                 names[i]);
        wd_costs c;
        wd_error err;
        CHECK_EQ(load_text("s.json", text, &c, &err), WD_ERR_USAGE);
        snprintf(want, sizeof want,
                 "s.json:3: cost \"%s\" is structural: fixed by the base model's rules (pvm), "
                 "not by a file",
                 names[i]);
        CHECK_STR_CONTAINS(err.msg, want);
        CHECK(c.name[0] == '\0');
    }
    wd_costs c;
    wd_error err;
    CHECK_EQ(load_text("f.json", "{\"base\": \"flat-1\", \"costs\": {\"init_base\": 0}}", &c, &err),
             WD_ERR_USAGE);
    CHECK_STR_CONTAINS(err.msg, "f.json:1: cost \"init_base\" is structural: fixed by the base "
                                "model's rules (flat-1)");
    /* The names of the approximate model's structure are gone. */
    CHECK_EQ(load_text("o.json", "{\"costs\": {\"branch_per_value\": 1}}", &c, &err), WD_ERR_USAGE);
    CHECK_STR_CONTAINS(err.msg, "o.json:1: unknown cost name \"branch_per_value\"");
}

/* A model file cannot start from the retired model nor take its name. */
TEST(tickmodel_file_refuses_retired_model)
{
    wd_costs c;
    wd_error err;
    CHECK_EQ(load_text("r.json", "{\"name\": \"r\",\n \"base\": \"pvm-2.0\"}", &c, &err),
             WD_ERR_USAGE);
    CHECK_STR_CONTAINS(err.msg, "r.json:2: base pvm-2.0 was an approximation of the PVM's ticks "
                                "that wasmdbg no longer has; the default model, pvm, counts "
                                "exactly as the Octez PVM does");
    CHECK(c.name[0] == '\0');
    CHECK_EQ(load_text("n.json", "{\"base\": \"pvm\",\n\n \"name\": \"pvm-2.0\"}", &c, &err),
             WD_ERR_USAGE);
    CHECK_STR_CONTAINS(err.msg,
                       "n.json:3: the model's name, pvm-2.0, is a retired tick model's: choose "
                       "another");
    CHECK_EQ(load_text("pvm-2.0.json", "{\"costs\": {\"nop\": 1}}", &c, &err), WD_ERR_USAGE);
    CHECK_STR_CONTAINS(err.msg, "pvm-2.0.json: the model's name, pvm-2.0 (from the file name), is "
                                "a retired tick model's: set \"name\"");
    CHECK_EQ(load_text("pvm-2.0.json", "{\"name\": \"mine\"}", &c, &err), WD_OK);
    CHECK(strcmp(c.name, "mine") == 0);
}

TEST(tickmodel_defaults)
{
    wd_costs c;
    wd_error err;
    const wd_costs *pvm = wd_tickmodel_builtin("pvm");
    CHECK_EQ(load_text("cheap-adds.json", "{\"costs\": {\"i64.add\": 0}}", &c, &err), WD_OK);
    CHECK(strcmp(c.name, "cheap-adds") == 0); /* from the file name */
    CHECK_EQ(op_cost(&c, 0, 0x7C), 0);
    /* the default base is pvm, the default model (flat-1 until pvm-2.0 was retired) */
    CHECK_EQ(op_cost(&c, 0, 0x6A), op_cost(pvm, 0, 0x6A));
    CHECK_EQ(op_cost(&c, 0, 0x04), op_cost(pvm, 0, 0x04)); /* if */
    CHECK_EQ(c.label_step, pvm->label_step);
    CHECK_EQ(c.bulk_per_byte, pvm->bulk_per_byte);
    CHECK(c.pvm_phases);
    CHECK_EQ(load_text("empty.json", "{}", &c, &err), WD_OK);
    CHECK(strcmp(c.name, "empty") == 0);
    CHECK(memcmp(c.op, pvm->op, sizeof c.op) == 0);
    CHECK_EQ(c.call_entry, pvm->call_entry);
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

/* Every name the loader lists is accepted, and sets a distinct value; the dynamic costs
 * come last, and no structural cost is listed. */
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
    CHECK(strcmp(wd_tickmodel_name(n - 7), "bulk_per_byte") == 0);
    CHECK(strcmp(wd_tickmodel_name(n - 1), "host_per_access") == 0);
    CHECK_EQ(c.bulk_per_byte, n - 7 + 100);
    CHECK_EQ(c.host_per_access, n - 1 + 100);
    const wd_costs *pvm = wd_tickmodel_builtin("pvm");
    CHECK_EQ(c.label_step, pvm->label_step);
}
