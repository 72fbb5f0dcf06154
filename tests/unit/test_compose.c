/* SPDX-License-Identifier: Apache-2.0 */
/* test_compose.c — scenario composition: include with deep merge (maps
 * merged, sequences and scalars replaced, the including file last), paths
 * relative to the including file, cycles and depth refused, errors naming
 * the included file; the YAML emitter's round trip (block and flow) through
 * the parser; document copies and put. argv[1] is the source root. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/unit/testutil.h"

#include "sim/scenario/compose.h"
#include "sim/scenario/emit.h"
#include "sim/scenario/node.h"

static const char *srcroot = ".";
static char tmpdir[64];

static void write_file(const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, rel);
    for (char *p = path + strlen(tmpdir) + 1; (p = strchr(p, '/')); p++) {
        *p = '\0';
        mkdir(path, 0777);
        *p = '/';
    }
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static WkDoc *load_tmp(const char *rel, WkError *err)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, rel);
    WkDoc *doc = NULL;
    wk_error_clear(err);
    int rc = wk_compose_load_file(&doc, path, err);
    if (rc == 0)
        assert_non_null(doc);
    return rc == 0 ? doc : NULL;
}

static WkDoc *parse(const char *text)
{
    WkDoc *doc = NULL;
    WkError err;
    wk_error_clear(&err);
    int rc = wk_doc_load_string(&doc, "s.yaml", text, strlen(text), &err);
    if (rc != 0)
        fail_msg("parse: %s: %s", err.where, err.msg);
    return doc;
}

static const char *str_at(const WkDoc *d, const char *a, const char *b)
{
    const WkNode *n = wk_node_get(d->root, a);
    if (b)
        n = wk_node_get(n, b);
    return n && n->type == WK_NODE_SCALAR ? n->str : NULL;
}

/* ---- emitter ------------------------------------------------------------------ */

/* Parse, emit, parse again: the same tree. */
static void roundtrip(const char *text)
{
    WkDoc *a = parse(text);
    char *yaml = wk_emit_yaml(a->root);
    assert_non_null(yaml);
    WkDoc *b = NULL;
    WkError err;
    wk_error_clear(&err);
    if (wk_doc_load_string(&b, "e.yaml", yaml, strlen(yaml), &err) != 0)
        fail_msg("emitted YAML does not parse: %s: %s\n%s", err.where, err.msg, yaml);
    if (!wk_compose_equal(a->root, b->root))
        fail_msg("round trip changed the tree:\n--- input\n%s\n--- emitted\n%s", text, yaml);
    free(yaml);
    wk_doc_free(a);
    wk_doc_free(b);
}

static void test_emit_roundtrip_tricky_scalars(void **state)
{
    (void)state;
    roundtrip("a: 1\nb: -2.5e3\nc: plain text here\nd: \"1\"\ne: ''\nf: ~\ng: true\n"
              "h: \"a: b\"\ni: \"x #y\"\nj: \"line\\nbreak\\ttab\"\nk: \"  lead and trail  \"\n"
              "l: \"-\"\nm: \"- item\"\nn: \"[not, a, list]\"\no: \"{x}\"\np: '\"quoted\"'\n"
              "q: \"back\\\\slash\"\nr: \"null\"\ns: \"~\"\nt: \"ünïcödé ✓\"\nu: \"\\x01\\x7f\"\n"
              "v: \"---\"\nw: \"...x\"\nx: \"#start\"\ny: \"&anchor\"\nz: \"*alias\"\n"
              "aa: \"!tag\"\nab: \"%pct\"\nac: \"@at\"\nad: \"`tick\"\nae: \"|pipe\"\naf: \">gt\"\n"
              "ag: \"a:b\"\nah: 10:30\nai: \"\\u2028sep\"\naj: \"\\u0085nel\"\nak: x,y\nal: \"?q\"\n");
}

static void test_emit_roundtrip_nesting(void **state)
{
    (void)state;
    roundtrip("m:\n  n:\n    o: 1\n  p: [1, [2, 3], {q: r}]\n  e: {}\n  s: []\n"
              "seq:\n  - a\n  - {x: 1, y: [1, 2]}\n  - [[a, b], [c]]\n  - ~\n  - []\n  - {}\n"
              "\"key: with colon\": 1\n\"#hash\": 2\n\"- dash\": 3\n");
    roundtrip("- 1\n- - 2\n  - 3\n- a: b\n  c: d\n");
    roundtrip("just a scalar\n");
}

static void test_emit_roundtrip_shipped_scenarios(void **state)
{
    (void)state;
    static const char *const names[] = {"quickstart", "synthetic-384", "philly", "superpod-10k", "hetero-mix", "llama3-16k",
                                        "paper-sci-10k", "throttle-rack3", "colossus-100k", NULL};
    for (int i = 0; names[i]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/scenarios/%s.yaml", srcroot, names[i]);
        FILE *f = fopen(path, "rb");
        assert_non_null(f);
        char *text = calloc(1, 1 << 20);
        size_t n = fread(text, 1, (1 << 20) - 1, f);
        fclose(f);
        text[n] = '\0';
        roundtrip(text);
        free(text);
    }
}

/* A flow value passes through wk_doc_set (the --set syntax) unchanged. */
static void test_emit_flow_reads_back_as_a_set_value(void **state)
{
    (void)state;
    WkDoc *a = parse("v: [1, \"a, b\", {k: \"x: y\", l: [~, true]}, \"[x]\", -3, \"a:b\", \"?q\", \"\"]\n");
    const WkNode *v = wk_node_get(a->root, "v");
    char *flow = wk_emit_flow(v);
    assert_non_null(flow);
    assert_null(strchr(flow, '\n'));
    char assign[1024];
    snprintf(assign, sizeof assign, "v=%s", flow);
    WkDoc *b = parse("v: 0\n");
    WkError err;
    wk_error_clear(&err);
    if (wk_doc_set(b, assign, 1, &err) != 0)
        fail_msg("--set '%s': %s", assign, err.msg);
    assert_true(wk_compose_equal(a->root, b->root));
    free(flow);
    wk_doc_free(a);
    wk_doc_free(b);
}

/* ---- includes ---------------------------------------------------------------- */

static void test_include_deep_merge_later_wins(void **state)
{
    (void)state;
    write_file("m/a.yaml", "name: a\ncluster: {nodes: 4, fabric: {kind: rail, radix: 64}}\nlist: [1, 2, 3]\nonly_a: x\n");
    write_file("m/b.yaml", "name: b\ncluster: {fabric: {radix: 32}, sku: A100}\nlist: [9]\n");
    write_file("m/top.yaml", "include: [a.yaml, b.yaml]\ncluster: {nodes: 8}\nextra: 1\n");
    WkError err;
    WkDoc *d = load_tmp("m/top.yaml", &err);
    assert_non_null(d);
    assert_string_equal(str_at(d, "name", NULL), "b");          /* later include wins */
    assert_string_equal(str_at(d, "cluster", "nodes"), "8");    /* the including file wins */
    assert_string_equal(str_at(d, "cluster", "sku"), "A100");
    const WkNode *fab = wk_node_get(wk_node_get(d->root, "cluster"), "fabric");
    assert_string_equal(wk_node_get(fab, "kind")->str, "rail"); /* maps merge deeper */
    assert_string_equal(wk_node_get(fab, "radix")->str, "32");
    const WkNode *list = wk_node_get(d->root, "list");
    assert_int_equal(list->nkids, 1);                           /* sequences are replaced */
    assert_string_equal(list->kids[0]->str, "9");
    assert_null(wk_node_get(d->root, "include"));
    /* key order: first appearance */
    assert_string_equal(d->root->kids[0]->key, "name");
    assert_string_equal(d->root->kids[1]->key, "cluster");
    assert_string_equal(d->root->kids[4]->key, "extra");
    /* positions stay with the file a value came from */
    assert_non_null(strstr(list->kids[0]->file, "b.yaml"));
    assert_non_null(strstr(wk_node_get(d->root, "only_a")->file, "a.yaml"));
    assert_int_equal(wk_node_get(d->root, "only_a")->line, 4);
    /* the document's text is the resolved scenario, which parses to the same tree */
    WkDoc *again = NULL;
    wk_error_clear(&err);
    assert_int_equal(wk_doc_load_string(&again, "r.yaml", d->text, d->text_len, &err), 0);
    assert_true(wk_compose_equal(d->root, again->root));
    wk_doc_free(again);
    wk_doc_free(d);
}

static void test_include_single_path_relative_to_including_file(void **state)
{
    (void)state;
    write_file("r/lib/base.yaml", "seed: 3\nname: base\n");
    write_file("r/lib/mid.yaml", "include: base.yaml\nname: mid\n");
    write_file("r/top.yaml", "include: lib/mid.yaml\n");
    WkError err;
    WkDoc *d = load_tmp("r/top.yaml", &err);
    assert_non_null(d);
    assert_string_equal(str_at(d, "seed", NULL), "3");
    assert_string_equal(str_at(d, "name", NULL), "mid");
    wk_doc_free(d);
}

static void test_include_cycle_refused(void **state)
{
    (void)state;
    write_file("c/a.yaml", "include: b.yaml\nx: 1\n");
    write_file("c/b.yaml", "y: 2\ninclude: [a.yaml]\n");
    WkError err;
    assert_null(load_tmp("c/a.yaml", &err));
    assert_int_equal(err.code, WK_E_INVAL);
    assert_non_null(strstr(err.msg, "include cycle"));
    assert_non_null(strstr(err.where, "b.yaml:2:11")); /* the item that closes the cycle */
    /* a file including itself */
    write_file("c/self.yaml", "include: self.yaml\n");
    assert_null(load_tmp("c/self.yaml", &err));
    assert_non_null(strstr(err.msg, "include cycle"));
}

/* Ten files, each including the next ten times, would read 10^9 files: the
 * composition stops at WK_COMPOSE_MAX_FILES reads with a positioned error.
 * 10 files each including the next once stay fine. */
static void test_include_bomb_stops_at_the_file_budget(void **state)
{
    (void)state;
    char name[32], text[256];
    for (int i = 0; i < 10; i++) {
        snprintf(name, sizeof name, "bomb/f%d.yaml", i);
        size_t k = 0;
        text[0] = '\0';
        if (i < 9) {
            k += (size_t)snprintf(text + k, sizeof text - k, "include: [");
            for (int j = 0; j < 10; j++)
                k += (size_t)snprintf(text + k, sizeof text - k, "%sf%d.yaml", j ? ", " : "", i + 1);
            k += (size_t)snprintf(text + k, sizeof text - k, "]\n");
        }
        snprintf(text + k, sizeof text - k, "v%d: 1\n", i);
        write_file(name, text);
    }
    WkError err;
    assert_null(load_tmp("bomb/f0.yaml", &err));
    assert_int_equal(err.code, WK_E_INVAL);
    assert_non_null(strstr(err.msg, "files read through include"));
    assert_non_null(strstr(err.where, ".yaml:1:"));
    write_file("chain/f0.yaml", "include: f1.yaml\nv0: 1\n");
    write_file("chain/f1.yaml", "include: [f2.yaml, f2.yaml]\nv1: 1\n");
    write_file("chain/f2.yaml", "v2: 1\n");
    WkDoc *d = load_tmp("chain/f0.yaml", &err);
    assert_non_null(d);
    wk_doc_free(d);
}

static void test_include_depth_limit(void **state)
{
    (void)state;
    char name[32], text[64];
    for (int i = 0; i <= 17; i++) {
        snprintf(name, sizeof name, "d/f%d.yaml", i);
        if (i < 17)
            snprintf(text, sizeof text, "include: f%d.yaml\nv%d: 1\n", i + 1, i);
        else
            snprintf(text, sizeof text, "v%d: 1\n", i);
        write_file(name, text);
    }
    WkError err;
    /* f1 -> f17 is 16 levels: accepted */
    WkDoc *d = load_tmp("d/f1.yaml", &err);
    assert_non_null(d);
    assert_non_null(wk_node_get(d->root, "v17"));
    wk_doc_free(d);
    /* f0 -> f17 is 17 levels: refused at the deepest include */
    assert_null(load_tmp("d/f0.yaml", &err));
    assert_int_equal(err.code, WK_E_INVAL);
    assert_non_null(strstr(err.msg, "more than 16 levels"));
    assert_non_null(strstr(err.where, "f16.yaml:1:10"));
}

static void test_include_errors_name_the_included_file(void **state)
{
    (void)state;
    WkError err;
    write_file("e/bad.yaml", "a: 1\nb: [1, 2\n");
    write_file("e/top.yaml", "x: 1\ninclude: [bad.yaml]\n");
    assert_null(load_tmp("e/top.yaml", &err));
    assert_int_equal(err.code, WK_E_INVAL);
    assert_non_null(strstr(err.where, "bad.yaml:"));
    assert_non_null(strstr(err.msg, "YAML syntax error"));
    assert_non_null(strstr(err.msg, "included from"));
    assert_non_null(strstr(err.msg, "top.yaml:2:11"));

    write_file("e/missing.yaml", "include: [nope.yaml]\n");
    assert_null(load_tmp("e/missing.yaml", &err));
    assert_int_equal(err.code, WK_E_IO);
    assert_non_null(strstr(err.where, "missing.yaml:1:11"));
    assert_non_null(strstr(err.msg, "nope.yaml"));

    write_file("e/list.yaml", "- 1\n");
    write_file("e/notmap.yaml", "include: list.yaml\n");
    assert_null(load_tmp("e/notmap.yaml", &err));
    assert_non_null(strstr(err.msg, "must hold a mapping"));
    assert_non_null(strstr(err.where, "list.yaml:1:1"));

    write_file("e/badval.yaml", "include: {a: 1}\n");
    assert_null(load_tmp("e/badval.yaml", &err));
    assert_non_null(strstr(err.msg, "a list of file names"));
    write_file("e/empty.yaml", "include: [\"\"]\n");
    assert_null(load_tmp("e/empty.yaml", &err));
    assert_non_null(strstr(err.msg, "non-empty string"));

    /* a value that comes from an included file keeps that file's position */
    write_file("e/val.yaml", "cluster:\n  nodes: 0\n");
    write_file("e/uses.yaml", "include: val.yaml\n");
    WkDoc *d = load_tmp("e/uses.yaml", &err);
    assert_non_null(d);
    int64_t nodes;
    wk_error_clear(&err);
    assert_int_equal(wk_node_int(wk_node_get(d->root, "cluster"), "nodes", 1, 1, 10, &nodes, &err), WK_E_RANGE);
    assert_non_null(strstr(err.where, "val.yaml:2:10"));
    wk_doc_free(d);
}

static void test_no_include_leaves_the_document_alone(void **state)
{
    (void)state;
    write_file("n/plain.yaml", "# comment\na: 1\n");
    WkError err;
    WkDoc *d = load_tmp("n/plain.yaml", &err);
    assert_non_null(d);
    assert_string_equal(d->text, "# comment\na: 1\n");
    wk_doc_free(d);
}

/* ---- copies and put ------------------------------------------------------------ */

static void test_copy_is_independent_of_the_original(void **state)
{
    (void)state;
    write_file("k/a.yaml", "cluster: {nodes: 4}\n");
    write_file("k/top.yaml", "include: a.yaml\nname: t\n");
    WkError err;
    WkDoc *d = load_tmp("k/top.yaml", &err);
    assert_non_null(d);
    WkDoc *c = NULL;
    assert_int_equal(wk_compose_copy(&c, d, &err), 0);
    assert_true(wk_compose_equal(d->root, c->root));
    assert_string_equal(c->text, d->text);
    WkDoc *v = parse("x: 64\n");
    assert_int_equal(wk_compose_put(c, "cluster.nodes", wk_node_get(v->root, "x"), &err), 0);
    assert_string_equal(str_at(d, "cluster", "nodes"), "4");
    assert_string_equal(str_at(c, "cluster", "nodes"), "64");
    const WkNode *name = wk_node_get(c->root, "name");
    wk_doc_free(d); /* the copy's file names live on */
    assert_non_null(strstr(name->file, "top.yaml"));
    wk_doc_free(c);
    wk_doc_free(v);
}

static void test_put_creates_maps_indexes_sequences_and_refuses_scalars(void **state)
{
    (void)state;
    WkDoc *d = parse("a: {b: 1}\nl: [{x: 1}, {x: 2}]\ns: 5\n");
    WkDoc *v = parse("val: {k: [1, 2]}\n");
    const WkNode *val = wk_node_get(v->root, "val");
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_compose_put(d, "a.c.d", val, &err), 0);
    const WkNode *dn = wk_node_get(wk_node_get(wk_node_get(d->root, "a"), "c"), "d");
    assert_non_null(dn);
    assert_int_equal(dn->type, WK_NODE_MAP);
    assert_int_equal(dn->line, val->line); /* positions of the value */
    assert_int_equal(wk_compose_put(d, "l.1.x", wk_node_get(val, "k"), &err), 0);
    const WkNode *x = wk_node_get(wk_node_get(d->root, "l")->kids[1], "x");
    assert_int_equal(x->type, WK_NODE_SEQ);
    char path[128];
    assert_string_equal(wk_node_path(x->kids[1], path, sizeof path), "l[1].x[1]");
    assert_int_equal(wk_compose_put(d, "s.t", val, &err), WK_E_INVAL);
    assert_non_null(strstr(err.msg, "is a scalar"));
    wk_error_clear(&err);
    assert_int_equal(wk_compose_put(d, "l.5", val, &err), WK_E_INVAL);
    wk_error_clear(&err);
    assert_int_equal(wk_compose_put(d, "a..b", val, &err), WK_E_INVAL);
    wk_doc_free(d);
    wk_doc_free(v);
}

static int setup(void **state)
{
    (void)state;
    return test_tmpdir_make(tmpdir, sizeof tmpdir, "compose");
}

static int teardown(void **state)
{
    (void)state;
    return test_tmpdir_remove(tmpdir);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        srcroot = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_emit_roundtrip_tricky_scalars),
        cmocka_unit_test(test_emit_roundtrip_nesting),
        cmocka_unit_test(test_emit_roundtrip_shipped_scenarios),
        cmocka_unit_test(test_emit_flow_reads_back_as_a_set_value),
        cmocka_unit_test(test_include_deep_merge_later_wins),
        cmocka_unit_test(test_include_single_path_relative_to_including_file),
        cmocka_unit_test(test_include_cycle_refused),
        cmocka_unit_test(test_include_bomb_stops_at_the_file_budget),
        cmocka_unit_test(test_include_depth_limit),
        cmocka_unit_test(test_include_errors_name_the_included_file),
        cmocka_unit_test(test_no_include_leaves_the_document_alone),
        cmocka_unit_test(test_copy_is_independent_of_the_original),
        cmocka_unit_test(test_put_creates_maps_indexes_sequences_and_refuses_scalars),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
