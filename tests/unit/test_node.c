/* SPDX-License-Identifier: Apache-2.0 */
/* test_node.c — the scenario document tree: positions from libyaml, refused
 * YAML features, typed readers and their error messages, durations, and
 * `--set` overrides. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sim/scenario/node.h"

/* ---- helpers ------------------------------------------------------------ */

static WkDoc *load_ok(const char *text)
{
    WkDoc *doc = NULL;
    WkError err;
    wk_error_clear(&err);
    int rc = wk_doc_load_string(&doc, "s.yaml", text, strlen(text), &err);
    if (rc != 0)
        print_error("unexpected error: %s: %s\n", err.where, err.msg);
    assert_int_equal(rc, 0);
    assert_non_null(doc);
    return doc;
}

/* Load text expecting failure with code, where, and a message fragment. */
static void load_fails(const char *text, int code, const char *where, const char *msg_part)
{
    WkDoc *doc = (WkDoc *)1;
    WkError err;
    wk_error_clear(&err);
    int rc = wk_doc_load_string(&doc, "s.yaml", text, strlen(text), &err);
    if (rc != code || strcmp(err.where, where) != 0 || !strstr(err.msg, msg_part))
        print_error("got rc %d where '%s' msg '%s'\n", rc, err.where, err.msg);
    assert_int_equal(rc, code);
    assert_int_equal(err.code, code);
    assert_null(doc);
    assert_string_equal(err.where, where);
    assert_non_null(strstr(err.msg, msg_part));
}

static void assert_err(const WkError *err, int code, const char *where, const char *msg_part)
{
    if (err->code != code || strcmp(err->where, where) != 0 || !strstr(err->msg, msg_part))
        print_error("got code %d where '%s' msg '%s'\n", err->code, err->where, err->msg);
    assert_int_equal(err->code, code);
    assert_string_equal(err->where, where);
    assert_non_null(strstr(err->msg, msg_part));
}

static const WkNode *at(const WkNode *map, const char *key)
{
    const WkNode *n = wk_node_get(map, key);
    assert_non_null(n);
    return n;
}

static void assert_pos(const WkNode *n, long line, long col)
{
    assert_int_equal(n->line, line);
    assert_int_equal(n->col, col);
}

static void assert_key_pos(const WkNode *n, long line, long col)
{
    assert_int_equal(n->key_line, line);
    assert_int_equal(n->key_col, col);
}

/* ---- loading ------------------------------------------------------------ */

static void test_load_gives_one_based_positions_of_values_and_keys_in_nested_maps(void **state)
{
    (void)state;
    WkDoc *doc = load_ok("seed: 7\n"
                         "cluster:\n"
                         "  nodes: 4\n"
                         "  pod:\n"
                         "      size:   32\n");
    const WkNode *root = doc->root;
    assert_int_equal(root->type, WK_NODE_MAP);
    assert_pos(root, 1, 1);
    const WkNode *seed = at(root, "seed");
    assert_pos(seed, 1, 7);
    assert_key_pos(seed, 1, 1);
    const WkNode *cluster = at(root, "cluster");
    assert_int_equal(cluster->type, WK_NODE_MAP);
    assert_key_pos(cluster, 2, 1);
    assert_pos(cluster, 3, 3);
    const WkNode *nodes = at(cluster, "nodes");
    assert_pos(nodes, 3, 10);
    assert_key_pos(nodes, 3, 3);
    assert_string_equal(nodes->str, "4");
    assert_ptr_equal(nodes->parent, cluster);
    assert_int_equal(nodes->index, -1);
    const WkNode *size = at(at(cluster, "pod"), "size");
    assert_pos(size, 5, 15);
    assert_key_pos(size, 5, 7);
    assert_string_equal(size->file, "s.yaml");
    wk_doc_free(doc);
}

static void test_load_gives_positions_and_indices_of_sequence_items(void **state)
{
    (void)state;
    WkDoc *doc = load_ok("jobs:\n"
                         "  - gpus: 8\n"
                         "  - gpus: 16\n"
                         "    name: b\n"
                         "list: [1, {x: 2}]\n");
    const WkNode *jobs = at(doc->root, "jobs");
    assert_int_equal(jobs->type, WK_NODE_SEQ);
    assert_int_equal(jobs->nkids, 2);
    const WkNode *j1 = jobs->kids[1];
    assert_int_equal(j1->index, 1);
    assert_null(j1->key);
    assert_pos(j1, 3, 5);
    assert_pos(at(j1, "gpus"), 3, 11);
    assert_key_pos(at(j1, "name"), 4, 5);
    const WkNode *list = at(doc->root, "list");
    assert_pos(list, 5, 7);
    assert_pos(list->kids[0], 5, 8);
    assert_int_equal(list->kids[1]->type, WK_NODE_MAP);
    assert_pos(list->kids[1], 5, 11);
    assert_pos(at(list->kids[1], "x"), 5, 15);
    assert_key_pos(at(list->kids[1], "x"), 5, 12);
    wk_doc_free(doc);
}

static void test_load_of_empty_text_gives_null_root_not_error(void **state)
{
    (void)state;
    WkDoc *doc = load_ok("");
    assert_null(doc->root);
    assert_string_equal(doc->file, "s.yaml");
    assert_int_equal(doc->text_len, 0);
    wk_doc_free(doc);
    doc = load_ok("# only a comment\n");
    assert_null(doc->root);
    wk_doc_free(doc);
    doc = load_ok("---\n");
    assert_null(doc->root);
    wk_doc_free(doc);
}

static void test_load_turns_plain_null_spellings_into_null_nodes(void **state)
{
    (void)state;
    WkDoc *doc = load_ok("a: ~\nb: null\nc: Null\nd: NULL\ne:\nf: nULL\ng: 'null'\nh: \"\"\n");
    const char *nulls[] = {"a", "b", "c", "d", "e"};
    for (size_t i = 0; i < 5; i++) {
        const WkNode *n = at(doc->root, nulls[i]);
        assert_int_equal(n->type, WK_NODE_NULL);
        assert_null(n->str);
    }
    assert_int_equal(at(doc->root, "f")->type, WK_NODE_SCALAR);
    assert_string_equal(at(doc->root, "f")->str, "nULL");
    assert_int_equal(at(doc->root, "g")->type, WK_NODE_SCALAR);
    assert_int_equal(at(doc->root, "g")->quoted, 1);
    assert_int_equal(at(doc->root, "h")->type, WK_NODE_SCALAR);
    assert_string_equal(at(doc->root, "h")->str, "");
    wk_doc_free(doc);
}

static void test_load_marks_quoted_and_block_scalars_as_quoted(void **state)
{
    (void)state;
    WkDoc *doc = load_ok("p: 3\nd: \"3\"\ns: '3'\nl: |\n  text\nf: >\n  folded\n");
    assert_int_equal(at(doc->root, "p")->quoted, 0);
    assert_int_equal(at(doc->root, "d")->quoted, 1);
    assert_int_equal(at(doc->root, "s")->quoted, 1);
    assert_int_equal(at(doc->root, "l")->quoted, 1);
    assert_string_equal(at(doc->root, "l")->str, "text\n");
    assert_int_equal(at(doc->root, "f")->quoted, 1);
    wk_doc_free(doc);
}

static void test_load_copies_text_and_name(void **state)
{
    (void)state;
    char text[] = "a: 1\nXXXX";
    WkDoc *doc = NULL;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_doc_load_string(&doc, "dir/sub/x.yaml", text, 5, &err), 0);
    text[0] = 'b';
    assert_int_equal(doc->text_len, 5);
    assert_string_equal(doc->text, "a: 1\n");
    assert_string_equal(doc->dir, "dir/sub");
    assert_non_null(wk_node_get(doc->root, "a"));
    wk_doc_free(doc);
}

static void test_load_syntax_error_gives_position_and_libyaml_problem(void **state)
{
    (void)state;
    load_fails("a: b: c\n", WK_E_INVAL, "s.yaml:1:5",
               "YAML syntax error: mapping values are not allowed in this context");
    load_fails("ok: 1\nlist: [1, 2\n", WK_E_INVAL, "s.yaml:3:1",
               "YAML syntax error: did not find expected ',' or ']'");
}

static void test_load_refuses_invalid_utf8_with_position(void **state)
{
    (void)state;
    load_fails("a: 1\nb: \xff\n", WK_E_INVAL, "s.yaml:2:4", "invalid leading UTF-8 octet");
}

static void test_load_refuses_duplicate_key_naming_path_and_first_line(void **state)
{
    (void)state;
    load_fails("seed: 1\ncluster:\n  nodes: 4\n  pods: 2\n  nodes: 5\n", WK_E_INVAL, "s.yaml:5:3",
               "cluster.nodes: duplicate key (first at line 3)");
    load_fails("a: {x: 1, x: 2}\n", WK_E_INVAL, "s.yaml:1:11", "a.x: duplicate key");
}

static void test_load_refuses_duplicate_key_in_large_mapping(void **state)
{
    (void)state;
    size_t cap = 300 * 16, used = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    for (int i = 0; i < 300; i++)
        used += (size_t)snprintf(text + used, cap - used, "k%d: %d\n", i, i);
    snprintf(text + used, cap - used, "k7: again\n");
    WkError err; /* the same map without the last line loads */
    wk_error_clear(&err);
    WkDoc *doc = NULL;
    assert_int_equal(wk_doc_load_string(&doc, "s.yaml", text, used, &err), 0);
    assert_int_equal(doc->root->nkids, 300);
    wk_doc_free(doc);
    load_fails(text, WK_E_INVAL, "s.yaml:301:1", "k7: duplicate key (first at line 8)");
    free(text);
}

static void test_load_refuses_anchors_and_aliases(void **state)
{
    (void)state;
    load_fails("base: &b {x: 1}\n", WK_E_INVAL, "s.yaml:1:7",
               "base: anchors and aliases are not supported (found anchor '&b')");
    load_fails("a: 1\nb: *x\n", WK_E_INVAL, "s.yaml:2:4",
               "b: anchors and aliases are not supported (found alias '*x')");
}

static void test_load_refuses_explicit_tags(void **state)
{
    (void)state;
    load_fails("a:\n  n: !!int 3\n", WK_E_INVAL, "s.yaml:2:6",
               "a.n: explicit tags are not supported (found tag '!!int')");
    load_fails("a: !foo [1]\n", WK_E_INVAL, "s.yaml:1:4", "explicit tags are not supported");
}

static void test_load_refuses_several_documents(void **state)
{
    (void)state;
    load_fails("a: 1\n---\nb: 2\n", WK_E_INVAL, "s.yaml:2:1", "several YAML documents");
}

static void test_load_refuses_non_scalar_keys(void **state)
{
    (void)state;
    load_fails("top:\n  ? [1, 2]\n  : v\n", WK_E_INVAL, "s.yaml:2:5",
               "top: keys must be scalars");
    load_fails("{a: 1}: 2\n", WK_E_INVAL, "s.yaml:1:1", "keys must be scalars");
}

static void test_load_refuses_nesting_deeper_than_limit(void **state)
{
    (void)state;
    char text[1200];
    memset(text, '[', 1000);
    text[1000] = '\0';
    WkDoc *doc = (WkDoc *)1;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_doc_load_string(&doc, "s.yaml", text, strlen(text), &err), WK_E_INVAL);
    assert_null(doc);
    assert_non_null(strstr(err.msg, "nested too deeply"));
}

/* A fresh empty directory under TMPDIR (or /tmp); caller removes it. */
static void make_dir(char *buf, size_t n)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(buf, n, "%s/wk_node_XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    assert_non_null(mkdtemp(buf));
}

static void test_load_file_missing_is_io_error_naming_file(void **state)
{
    (void)state;
    char dir[256], path[300];
    make_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/scenario.yaml", dir);
    WkDoc *doc = (WkDoc *)1;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_doc_load_file(&doc, path, &err), WK_E_IO);
    assert_null(doc);
    assert_err(&err, WK_E_IO, path, "No such file or directory");
    char buf[1024];
    char want[600];
    snprintf(want, sizeof want, "%s: No such file or directory", path);
    assert_string_equal(wk_error_format(&err, buf, sizeof buf), want);

    wk_error_clear(&err); /* a directory is not a readable scenario */
    assert_int_equal(wk_doc_load_file(&doc, dir, &err), WK_E_IO);
    assert_null(doc);
    assert_string_equal(err.where, dir);
    rmdir(dir);
}

static void test_load_file_keeps_exact_text_and_directory(void **state)
{
    (void)state;
    char dir[256], path[300];
    make_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/x.yaml", dir);
    const char *text = "# c\r\nseed: 5 # note\n\n";
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    WkDoc *doc = NULL;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_doc_load_file(&doc, path, &err), 0);
    assert_int_equal(doc->text_len, strlen(text));
    assert_memory_equal(doc->text, text, strlen(text));
    assert_string_equal(doc->dir, dir);
    assert_string_equal(doc->file, path);
    const WkNode *seed = at(doc->root, "seed");
    assert_pos(seed, 2, 7);
    assert_string_equal(seed->file, path);
    wk_doc_free(doc);
    unlink(path);
    rmdir(dir);
}

static void test_load_file_errors_carry_file_line_col(void **state)
{
    (void)state;
    char dir[256], path[300], want[320];
    make_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/bad.yaml", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("a: 1\na: 2\n", f);
    fclose(f);
    WkDoc *doc = NULL;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_doc_load_file(&doc, path, &err), WK_E_INVAL);
    snprintf(want, sizeof want, "%s:2:1", path);
    assert_err(&err, WK_E_INVAL, want, "a: duplicate key (first at line 1)");
    unlink(path);
    rmdir(dir);
}

static void test_load_file_larger_than_64_mib_is_range_error(void **state)
{
    (void)state;
    char dir[256], path[300];
    make_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/big.yaml", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(ftruncate(fileno(f), (off_t)(65 << 20)), 0); /* sparse: no disk use */
    fclose(f);
    WkDoc *doc = (WkDoc *)1;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_doc_load_file(&doc, path, &err), WK_E_RANGE);
    assert_null(doc);
    assert_err(&err, WK_E_RANGE, path, "larger than 64 MiB");
    unlink(path);
    rmdir(dir);
}

static void test_load_file_without_directory_has_dot_dir(void **state)
{
    (void)state;
    WkDoc *doc = NULL;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_doc_load_string(&doc, "x.yaml", "a: 1", 4, &err), 0);
    assert_string_equal(doc->dir, ".");
    wk_doc_free(doc);
}

/* ---- paths, errors and keys --------------------------------------------- */

static void test_path_joins_keys_with_dots_and_indices_in_brackets(void **state)
{
    (void)state;
    WkDoc *doc = load_ok("workload:\n  jobs:\n    - {gpus: 1}\n    - {gpus: 2}\n"
                         "grid: [[1, 2], [3, 4]]\n");
    char buf[128];
    const WkNode *jobs = at(at(doc->root, "workload"), "jobs");
    assert_string_equal(wk_node_path(at(jobs->kids[1], "gpus"), buf, sizeof buf),
                        "workload.jobs[1].gpus");
    assert_string_equal(wk_node_path(jobs, buf, sizeof buf), "workload.jobs");
    assert_string_equal(wk_node_path(at(doc->root, "grid")->kids[1]->kids[0], buf, sizeof buf),
                        "grid[1][0]");
    assert_string_equal(wk_node_path(doc->root, buf, sizeof buf), "");
    char small[6];
    assert_string_equal(wk_node_path(jobs, small, sizeof small), "workl");
    wk_doc_free(doc);
}

static void test_node_error_prefixes_path_and_positions_at_node(void **state)
{
    (void)state;
    WkDoc *doc = load_ok("a:\n  b: [x, y]\n");
    const WkNode *y = at(at(doc->root, "a"), "b")->kids[1];
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_node_error(y, WK_E_NOTFOUND, &err, "no such %s", "thing"), WK_E_NOTFOUND);
    assert_err(&err, WK_E_NOTFOUND, "s.yaml:2:10", "a.b[1]: no such thing");
    wk_doc_free(doc);
}

static void test_expect_keys_reports_unknown_key_at_key_position_with_known_list(void **state)
{
    (void)state;
    WkDoc *doc = load_ok("workload:\n  jobs: 3\n  foo:   1\n");
    static const char *const known[] = {"source", "jobs", "trace", NULL};
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_node_expect_keys(at(doc->root, "workload"), known, &err), WK_E_INVAL);
    assert_err(&err, WK_E_INVAL, "s.yaml:3:3",
               "workload.foo: unknown key 'foo' (known: source, jobs, trace)");
    wk_doc_free(doc);
}

static void test_expect_keys_accepts_known_keys_absent_maps_and_rejects_non_maps(void **state)
{
    (void)state;
    WkDoc *doc = load_ok("a: {x: 1, y: 2}\nb:\nc: 5\n");
    static const char *const known[] = {"x", "y", NULL};
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_node_expect_keys(at(doc->root, "a"), known, &err), 0);
    assert_int_equal(wk_node_expect_keys(at(doc->root, "b"), known, &err), 0);
    assert_int_equal(wk_node_expect_keys(NULL, known, &err), 0);
    assert_int_equal(err.code, 0);
    assert_int_equal(wk_node_expect_keys(at(doc->root, "c"), known, &err), WK_E_INVAL);
    assert_err(&err, WK_E_INVAL, "s.yaml:3:4", "c: expected a mapping, got a scalar");
    wk_doc_free(doc);
}

static void test_get_treats_null_and_non_map_as_absent(void **state)
{
    (void)state;
    WkDoc *doc = load_ok("a: 1\n");
    assert_null(wk_node_get(NULL, "a"));
    assert_null(wk_node_get(at(doc->root, "a"), "a"));
    assert_null(wk_node_get(doc->root, "b"));
    wk_doc_free(doc);
}

/* ---- typed readers ------------------------------------------------------ */

static int64_t read_int(const char *value, int *rc, WkError *err)
{
    char text[256];
    snprintf(text, sizeof text, "v: %s\n", value);
    WkDoc *doc = load_ok(text);
    int64_t v = -777;
    wk_error_clear(err);
    *rc = wk_node_int(doc->root, "v", 1, INT64_MIN, INT64_MAX, &v, err);
    wk_doc_free(doc);
    return v;
}

static void test_int_accepts_decimal_underscores_and_exact_exponents(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int64_t want;
    } cases[] = {
        {"42", 42},           {"-7", -7},         {"+3", 3},
        {"1_000_000", 1000000}, {"1e6", 1000000},  {"2.5e3", 2500},
        {"1E+2", 100},        {"1.0", 1},         {"007", 7},
        {"9223372036854775807", INT64_MAX},       {"-9223372036854775808", INT64_MIN},
        {"0", 0},             {"-0", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc;
        WkError err;
        int64_t v = read_int(cases[i].text, &rc, &err);
        if (rc != 0 || v != cases[i].want)
            print_error("'%s' -> rc %d v %lld (%s)\n", cases[i].text, rc, (long long)v, err.msg);
        assert_int_equal(rc, 0);
        assert_true(v == cases[i].want);
    }
}

static void test_int_rejects_fractions_and_junk_as_not_an_integer(void **state)
{
    (void)state;
    const char *bad[] = {"1.5", "1e-1", "12abc", "0x10", "1__0", "_1", "1_", "abc", "1.2.3", "true"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc;
        WkError err;
        int64_t v = read_int(bad[i], &rc, &err);
        if (rc != WK_E_INVAL)
            print_error("'%s' -> rc %d\n", bad[i], rc);
        assert_int_equal(rc, WK_E_INVAL);
        assert_true(v == -777);
        assert_string_equal(err.where, "s.yaml:1:4");
        assert_non_null(strstr(err.msg, "v: expected an integer, got '"));
    }
}

static void test_int_outside_range_names_bounds_and_value(void **state)
{
    (void)state;
    WkDoc *doc = load_ok("cluster:\n  nodes: 0\n  big: 1e7\n  huge: 99999999999999999999\n");
    const WkNode *c = at(doc->root, "cluster");
    int64_t v = 5;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_node_int(c, "nodes", 1, 1, 1000000, &v, &err), WK_E_RANGE);
    assert_err(&err, WK_E_RANGE, "s.yaml:2:10",
               "cluster.nodes: must be between 1 and 1000000 (got 0)");
    assert_true(v == 5);
    wk_error_clear(&err);
    assert_int_equal(wk_node_int(c, "big", 1, 1, 1000000, &v, &err), WK_E_RANGE);
    assert_err(&err, WK_E_RANGE, "s.yaml:3:8", "must be between 1 and 1000000 (got 1e7)");
    wk_error_clear(&err);
    assert_int_equal(wk_node_int(c, "nodes", 1, 1, INT64_MAX, &v, &err), WK_E_RANGE);
    assert_err(&err, WK_E_RANGE, "s.yaml:2:10", "cluster.nodes: must be at least 1 (got 0)");
    wk_error_clear(&err);
    assert_int_equal(wk_node_int(c, "huge", 1, INT64_MIN, INT64_MAX, &v, &err), WK_E_RANGE);
    assert_err(&err, WK_E_RANGE, "s.yaml:4:9", "cluster.huge: out of range");
    wk_error_clear(&err); /* inclusive bounds */
    assert_int_equal(wk_node_int(c, "nodes", 1, 0, 0, &v, &err), 0);
    assert_true(v == 0);
    wk_doc_free(doc);
}

static void test_quoted_number_is_a_string_not_a_number(void **state)
{
    (void)state;
    WkDoc *doc = load_ok("n: \"3\"\nx: '2.5'\ns: 3\n");
    int64_t v = 0;
    double d = 0;
    const char *s = NULL;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_node_int(doc->root, "n", 1, 0, 10, &v, &err), WK_E_INVAL);
    assert_err(&err, WK_E_INVAL, "s.yaml:1:4", "n: expected a number, got a string");
    wk_error_clear(&err);
    assert_int_equal(wk_node_double(doc->root, "x", 1, 0, 10, &d, &err), WK_E_INVAL);
    assert_err(&err, WK_E_INVAL, "s.yaml:2:4", "x: expected a number, got a string");
    wk_error_clear(&err); /* both spellings read as strings */
    assert_int_equal(wk_node_str(doc->root, "n", 1, &s, &err), 0);
    assert_string_equal(s, "3");
    assert_int_equal(wk_node_str(doc->root, "s", 1, &s, &err), 0);
    assert_string_equal(s, "3");
    assert_int_equal(wk_node_int(doc->root, "s", 1, 0, 10, &v, &err), 0);
    assert_true(v == 3);
    wk_doc_free(doc);
}

static void test_missing_required_key_is_error_and_absent_optional_keeps_out(void **state)
{
    (void)state;
    WkDoc *doc = load_ok("cluster:\n  pods: 2\n  gap:\n");
    const WkNode *c = at(doc->root, "cluster");
    int64_t v = 11;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_node_int(c, "nodes", 0, 0, 10, &v, &err), 0);
    assert_int_equal(wk_node_int(c, "gap", 0, 0, 10, &v, &err), 0);
    assert_int_equal(wk_node_int(NULL, "nodes", 0, 0, 10, &v, &err), 0);
    assert_true(v == 11);
    assert_int_equal(err.code, 0);
    assert_int_equal(wk_node_int(c, "nodes", 1, 0, 10, &v, &err), WK_E_INVAL);
    assert_err(&err, WK_E_INVAL, "s.yaml:2:3", "cluster.nodes: missing required key");
    wk_error_clear(&err);
    assert_int_equal(wk_node_int(c, "gap", 1, 0, 10, &v, &err), WK_E_INVAL);
    assert_err(&err, WK_E_INVAL, "s.yaml:3:7", "cluster.gap: a value is required");
    wk_error_clear(&err);
    assert_int_equal(wk_node_int(NULL, "nodes", 1, 0, 10, &v, &err), WK_E_INVAL);
    assert_err(&err, WK_E_INVAL, "", "nodes: missing required key");
    assert_true(v == 11);
    wk_doc_free(doc);
}

static void test_reader_on_wrong_kind_names_kind_found(void **state)
{
    (void)state;
    WkDoc *doc = load_ok("m: {a: 1}\nq: [1]\n");
    int64_t v;
    const char *s;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_node_int(doc->root, "m", 1, 0, 9, &v, &err), WK_E_INVAL);
    assert_err(&err, WK_E_INVAL, "s.yaml:1:4", "m: expected an integer, got a mapping");
    wk_error_clear(&err);
    assert_int_equal(wk_node_str(doc->root, "q", 1, &s, &err), WK_E_INVAL);
    assert_err(&err, WK_E_INVAL, "s.yaml:2:4", "q: expected a string, got a sequence");
    wk_error_clear(&err);
    assert_int_equal(wk_node_int(at(doc->root, "q"), "x", 0, 0, 9, &v, &err), WK_E_INVAL);
    assert_err(&err, WK_E_INVAL, "s.yaml:2:4", "q: expected a mapping, got a sequence");
    wk_doc_free(doc);
}

static void test_double_accepts_numbers_and_rejects_nan_inf_and_junk(void **state)
{
    (void)state;
    WkDoc *doc = load_ok("a: 0.25\nb: -1e-3\nc: 1_000.5\nd: nan\ne: inf\nf: 1.5x\n"
                         "g: 1e999\nh: .5\ni: 0x1p3\nj: 2\n");
    double v = 0;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_node_double(doc->root, "a", 1, 0, 1, &v, &err), 0);
    assert_true(v == 0.25);
    assert_int_equal(wk_node_double(doc->root, "b", 1, -1, 1, &v, &err), 0);
    assert_true(v == -1e-3);
    assert_int_equal(wk_node_double(doc->root, "c", 1, 0, 1e9, &v, &err), 0);
    assert_true(v == 1000.5);
    assert_int_equal(wk_node_double(doc->root, "h", 1, 0, 1, &v, &err), 0);
    assert_true(v == 0.5);
    const char *bad[] = {"d", "e", "f", "i"};
    for (size_t i = 0; i < 4; i++) {
        wk_error_clear(&err);
        assert_int_equal(wk_node_double(doc->root, bad[i], 1, -1e300, 1e300, &v, &err),
                         WK_E_INVAL);
        assert_non_null(strstr(err.msg, "expected a number, got '"));
    }
    wk_error_clear(&err);
    assert_int_equal(wk_node_double(doc->root, "g", 1, -1e300, 1e300, &v, &err), WK_E_RANGE);
    assert_err(&err, WK_E_RANGE, "s.yaml:7:4", "g: must be between -1e+300 and 1e+300 (got 1e999)");
    wk_error_clear(&err);
    assert_int_equal(wk_node_double(doc->root, "j", 1, 0, 1, &v, &err), WK_E_RANGE);
    assert_err(&err, WK_E_RANGE, "s.yaml:10:4", "j: must be between 0 and 1 (got 2)");
    wk_doc_free(doc);
}

static void test_bool_accepts_true_false_yes_no_on_off_in_any_case(void **state)
{
    (void)state;
    WkDoc *doc = load_ok("a: true\nb: FALSE\nc: Yes\nd: no\ne: ON\nf: off\ng: 1\nh: 'true'\n");
    const char *keys[] = {"a", "b", "c", "d", "e", "f"};
    const int want[] = {1, 0, 1, 0, 1, 0};
    WkError err;
    wk_error_clear(&err);
    for (size_t i = 0; i < 6; i++) {
        int v = -1;
        assert_int_equal(wk_node_bool(doc->root, keys[i], 1, &v, &err), 0);
        assert_int_equal(v, want[i]);
    }
    int v = -1;
    assert_int_equal(wk_node_bool(doc->root, "g", 1, &v, &err), WK_E_INVAL);
    assert_err(&err, WK_E_INVAL, "s.yaml:7:4", "g: expected true or false, got '1'");
    wk_error_clear(&err);
    assert_int_equal(wk_node_bool(doc->root, "h", 1, &v, &err), WK_E_INVAL);
    assert_err(&err, WK_E_INVAL, "s.yaml:8:4", "h: expected true or false, got a string");
    assert_int_equal(v, -1);
    wk_doc_free(doc);
}

static void test_enum_returns_index_and_unknown_value_lists_known(void **state)
{
    (void)state;
    WkDoc *doc = load_ok("scheduler: sjf\nother: x\n");
    static const char *const names[] = {"fifo", "sjf", NULL};
    int v = -1;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_node_enum(doc->root, "scheduler", 1, names, &v, &err), 0);
    assert_int_equal(v, 1);
    assert_int_equal(wk_node_enum(doc->root, "other", 1, names, &v, &err), WK_E_INVAL);
    assert_err(&err, WK_E_INVAL, "s.yaml:2:8", "other: unknown value 'x' (known: fifo, sjf)");
    assert_int_equal(v, 1);
    wk_doc_free(doc);
}

static void test_as_readers_work_on_sequence_items_with_indexed_paths(void **state)
{
    (void)state;
    WkDoc *doc = load_ok("sizes: [8, 16, 0.5]\nwaits: [1h, 90]\n");
    const WkNode *sizes = at(doc->root, "sizes");
    int64_t v = 0;
    double d = 0;
    WkTime t = 0;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_node_as_int(sizes->kids[1], 1, 100, &v, &err), 0);
    assert_true(v == 16);
    assert_int_equal(wk_node_as_double(sizes->kids[2], 0, 1, &d, &err), 0);
    assert_true(d == 0.5);
    assert_int_equal(wk_node_as_duration(at(doc->root, "waits")->kids[0], 0, WK_TIME_NEVER, &t,
                                         &err), 0);
    assert_true(t == WK_NS_PER_H);
    assert_int_equal(wk_node_as_int(sizes->kids[2], 1, 100, &v, &err), WK_E_INVAL);
    assert_err(&err, WK_E_INVAL, "s.yaml:1:16", "sizes[2]: expected an integer, got '0.5'");
    wk_doc_free(doc);
}

/* ---- durations ---------------------------------------------------------- */

static void test_duration_parses_numbers_and_unit_suffixes(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        WkTime want;
    } cases[] = {
        {"90", 90 * WK_NS_PER_S},
        {"90s", 90 * WK_NS_PER_S},
        {"1.5h", 5400 * WK_NS_PER_S},
        {"100ms", 100 * WK_NS_PER_MS},
        {"2d", 2 * WK_NS_PER_DAY},
        {"1w", 7 * WK_NS_PER_DAY},
        {"5m", 5 * WK_NS_PER_MIN},
        {"5min", 5 * WK_NS_PER_MIN},
        {"250us", 250 * WK_NS_PER_US},
        {"7ns", 7},
        {"0.5", WK_NS_PER_S / 2},
        {"2.6ns", 3},
        {"1e3", 1000 * WK_NS_PER_S},
        {"1_000ms", WK_NS_PER_S},
        {"10 s", 10 * WK_NS_PER_S},
        {"0", 0},
        {"-5s", -5 * WK_NS_PER_S},
        {"0.000000001s", 1},
        {"106751d", 106751 * WK_NS_PER_DAY},
        {"9223372036854775807ns", INT64_MAX},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        WkTime t = -1;
        int rc = wk_parse_duration(cases[i].text, &t);
        if (rc != 0 || t != cases[i].want)
            print_error("'%s' -> rc %d t %lld\n", cases[i].text, rc, (long long)t);
        assert_int_equal(rc, 0);
        assert_true(t == cases[i].want);
    }
}

static void test_duration_rejects_unknown_units_and_junk(void **state)
{
    (void)state;
    const char *bad[] = {"5 parsecs", "", "s", "1.5.h", "5S", "5sec", "h1", "1e", "nan", "5s "};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        WkTime t = 123;
        int rc = wk_parse_duration(bad[i], &t);
        if (rc != WK_E_INVAL)
            print_error("'%s' -> rc %d\n", bad[i], rc);
        assert_int_equal(rc, WK_E_INVAL);
        assert_true(t == 123);
    }
}

static void test_duration_overflow_is_range_error(void **state)
{
    (void)state;
    WkTime t = 123;
    assert_int_equal(wk_parse_duration("106752d", &t), WK_E_RANGE);
    assert_int_equal(wk_parse_duration("9223372036854775808ns", &t), WK_E_RANGE);
    assert_int_equal(wk_parse_duration("1e30w", &t), WK_E_RANGE);
    assert_true(t == 123);
    WkDoc *doc = load_ok("t: 1e30w\n");
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_node_duration(doc->root, "t", 1, 0, WK_TIME_NEVER, &t, &err), WK_E_RANGE);
    assert_err(&err, WK_E_RANGE, "s.yaml:1:4", "t: must be at least 0s (got 1e30w)");
    wk_doc_free(doc);
}

static void test_duration_reader_applies_min_and_max_to_negative_values(void **state)
{
    (void)state;
    WkDoc *doc = load_ok("job:\n  timeout: -5s\n  ckpt: 2d\n  bad: 5 parsecs\n");
    const WkNode *job = at(doc->root, "job");
    WkTime t = 77;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_node_duration(job, "timeout", 1, 0, WK_TIME_NEVER, &t, &err), WK_E_RANGE);
    assert_err(&err, WK_E_RANGE, "s.yaml:2:12", "job.timeout: must be at least 0s (got -5s)");
    wk_error_clear(&err);
    assert_int_equal(wk_node_duration(job, "timeout", 1, -WK_NS_PER_MIN, WK_NS_PER_MIN, &t, &err),
                     0);
    assert_true(t == -5 * WK_NS_PER_S);
    assert_int_equal(wk_node_duration(job, "ckpt", 1, 0, WK_NS_PER_DAY, &t, &err), WK_E_RANGE);
    assert_err(&err, WK_E_RANGE, "s.yaml:3:9", "job.ckpt: must be between 0s and 1d (got 2d)");
    wk_error_clear(&err);
    assert_int_equal(wk_node_duration(job, "bad", 1, 0, WK_TIME_NEVER, &t, &err), WK_E_INVAL);
    assert_err(&err, WK_E_INVAL, "s.yaml:4:8", "job.bad: expected a duration");
    wk_doc_free(doc);
}

static void test_duration_quoted_with_unit_is_accepted_but_quoted_bare_number_is_not(void **state)
{
    (void)state;
    WkDoc *doc = load_ok("a: \"30min\"\nb: '90'\n");
    WkTime t = 0;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_node_duration(doc->root, "a", 1, 0, WK_TIME_NEVER, &t, &err), 0);
    assert_true(t == 30 * WK_NS_PER_MIN);
    assert_int_equal(wk_node_duration(doc->root, "b", 1, 0, WK_TIME_NEVER, &t, &err), WK_E_INVAL);
    assert_err(&err, WK_E_INVAL, "s.yaml:2:4", "b: expected a number, got a string");
    wk_doc_free(doc);
}

/* ---- --set -------------------------------------------------------------- */

static void set_ok(WkDoc *doc, const char *assignment, long n)
{
    WkError err;
    wk_error_clear(&err);
    int rc = wk_doc_set(doc, assignment, n, &err);
    if (rc != 0)
        print_error("--set '%s': %s: %s\n", assignment, err.where, err.msg);
    assert_int_equal(rc, 0);
}

static void set_fails(WkDoc *doc, const char *assignment, long n, const char *where,
                      const char *msg_part)
{
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_doc_set(doc, assignment, n, &err), WK_E_INVAL);
    assert_err(&err, WK_E_INVAL, where, msg_part);
}

static void test_set_overrides_existing_value_with_set_position(void **state)
{
    (void)state;
    WkDoc *doc = load_ok("cluster:\n  nodes: 4\n  pods: 2\n");
    set_ok(doc, "cluster.nodes=128", 2);
    const WkNode *c = at(doc->root, "cluster");
    assert_int_equal(c->nkids, 2);
    const WkNode *nodes = c->kids[0]; /* keeps its place in the mapping */
    assert_string_equal(nodes->key, "nodes");
    assert_string_equal(nodes->str, "128");
    assert_string_equal(nodes->file, "--set");
    assert_pos(nodes, 2, 15);
    assert_key_pos(nodes, 2, 9);
    assert_ptr_equal(nodes->parent, c);
    int64_t v = 0;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_node_int(c, "nodes", 1, 1, 64, &v, &err), WK_E_RANGE);
    assert_err(&err, WK_E_RANGE, "--set:2:15", "cluster.nodes: must be between 1 and 64 (got 128)");
    wk_doc_free(doc);
}

static void test_set_creates_missing_keys_and_sections(void **state)
{
    (void)state;
    WkDoc *doc = load_ok("seed: 1\nempty:\n");
    set_ok(doc, "fail.mttf.hours=5000", 1);
    set_ok(doc, "empty.x=y", 2);
    const WkNode *hours = at(at(at(doc->root, "fail"), "mttf"), "hours");
    assert_string_equal(hours->str, "5000");
    assert_pos(hours, 1, 17);
    char buf[64];
    assert_string_equal(wk_node_path(hours, buf, sizeof buf), "fail.mttf.hours");
    assert_string_equal(at(at(doc->root, "empty"), "x")->str, "y");
    assert_int_equal(at(doc->root, "empty")->type, WK_NODE_MAP);
    wk_doc_free(doc);
}

static void test_set_on_empty_document_creates_root_map(void **state)
{
    (void)state;
    WkDoc *doc = load_ok("");
    set_ok(doc, "seed=42", 1);
    assert_non_null(doc->root);
    assert_int_equal(doc->root->type, WK_NODE_MAP);
    assert_string_equal(at(doc->root, "seed")->str, "42");
    wk_doc_free(doc);
}

static void test_set_numeric_segment_indexes_a_sequence(void **state)
{
    (void)state;
    WkDoc *doc = load_ok("a:\n  b:\n    - {c: 1}\n    - {c: 2}\n");
    set_ok(doc, "a.b.1.c=9", 1);
    set_ok(doc, "a.b.0={c: 5, d: 6}", 2);
    const WkNode *b = at(at(doc->root, "a"), "b");
    assert_string_equal(at(b->kids[1], "c")->str, "9");
    assert_int_equal(b->kids[0]->type, WK_NODE_MAP);
    assert_int_equal(b->kids[0]->index, 0);
    assert_null(b->kids[0]->key);
    assert_string_equal(at(b->kids[0], "d")->str, "6");
    char buf[64];
    assert_string_equal(wk_node_path(at(b->kids[0], "d"), buf, sizeof buf), "a.b[0].d");
    wk_doc_free(doc);
}

static void test_set_parses_flow_values_and_keeps_plain_scalars(void **state)
{
    (void)state;
    WkDoc *doc = load_ok("x: 1\n");
    set_ok(doc, "list=[1, 2]", 1);
    set_ok(doc, "map={a: 1}", 2);
    set_ok(doc, "x=3", 3);
    set_ok(doc, "s=\"3\"", 4);
    set_ok(doc, "n=", 5);
    set_ok(doc, "t=hello world", 6);
    const WkNode *list = at(doc->root, "list");
    assert_int_equal(list->type, WK_NODE_SEQ);
    assert_int_equal(list->nkids, 2);
    assert_string_equal(list->kids[1]->str, "2");
    assert_pos(list->kids[1], 1, 10);
    assert_string_equal(list->kids[1]->file, "--set");
    assert_int_equal(at(doc->root, "map")->type, WK_NODE_MAP);
    assert_pos(at(at(doc->root, "map"), "a"), 2, 9);
    const WkNode *x = at(doc->root, "x");
    assert_int_equal(x->type, WK_NODE_SCALAR);
    assert_int_equal(x->quoted, 0);
    assert_string_equal(x->str, "3");
    assert_int_equal(at(doc->root, "s")->quoted, 1);
    assert_int_equal(at(doc->root, "n")->type, WK_NODE_NULL);
    assert_string_equal(at(doc->root, "t")->str, "hello world");
    wk_doc_free(doc);
}

static void test_set_rejects_malformed_assignments_with_set_position(void **state)
{
    (void)state;
    WkDoc *doc = load_ok("a: 1\nl: [1, 2]\n");
    set_fails(doc, "abc", 3, "--set:3:1", "--set 'abc': expected key.path=value");
    set_fails(doc, "=5", 1, "--set:1:1", "expected key.path=value");
    set_fails(doc, "a..b=5", 1, "--set:1:3", "empty key segment");
    set_fails(doc, "a.b=5", 2, "--set:2:3", "'a' is a scalar (at s.yaml:1:4)");
    set_fails(doc, "l.2=5", 1, "--set:1:3", "index 2 is out of range for 'l' (2 items)");
    set_fails(doc, "l.x=5", 1, "--set:1:3", "'l' is a sequence: expected an index, got 'x'");
    set_fails(doc, "l.0=[1", 4, "--set:4:7", "YAML syntax error: did not find expected ',' or ']'");
    set_fails(doc, "a=&x 1", 1, "--set:1:3", "anchors and aliases are not supported");
    set_fails(doc, "a=k: v", 1, "--set:1:3", "must be a scalar or a flow collection");
    /* nothing changed */
    assert_string_equal(at(doc->root, "a")->str, "1");
    assert_int_equal(at(doc->root, "l")->nkids, 2);
    assert_null(wk_node_get(doc->root, "b"));
    wk_doc_free(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_gives_one_based_positions_of_values_and_keys_in_nested_maps),
        cmocka_unit_test(test_load_gives_positions_and_indices_of_sequence_items),
        cmocka_unit_test(test_load_of_empty_text_gives_null_root_not_error),
        cmocka_unit_test(test_load_turns_plain_null_spellings_into_null_nodes),
        cmocka_unit_test(test_load_marks_quoted_and_block_scalars_as_quoted),
        cmocka_unit_test(test_load_copies_text_and_name),
        cmocka_unit_test(test_load_syntax_error_gives_position_and_libyaml_problem),
        cmocka_unit_test(test_load_refuses_invalid_utf8_with_position),
        cmocka_unit_test(test_load_refuses_duplicate_key_naming_path_and_first_line),
        cmocka_unit_test(test_load_refuses_duplicate_key_in_large_mapping),
        cmocka_unit_test(test_load_refuses_anchors_and_aliases),
        cmocka_unit_test(test_load_refuses_explicit_tags),
        cmocka_unit_test(test_load_refuses_several_documents),
        cmocka_unit_test(test_load_refuses_non_scalar_keys),
        cmocka_unit_test(test_load_refuses_nesting_deeper_than_limit),
        cmocka_unit_test(test_load_file_missing_is_io_error_naming_file),
        cmocka_unit_test(test_load_file_keeps_exact_text_and_directory),
        cmocka_unit_test(test_load_file_errors_carry_file_line_col),
        cmocka_unit_test(test_load_file_larger_than_64_mib_is_range_error),
        cmocka_unit_test(test_load_file_without_directory_has_dot_dir),
        cmocka_unit_test(test_path_joins_keys_with_dots_and_indices_in_brackets),
        cmocka_unit_test(test_node_error_prefixes_path_and_positions_at_node),
        cmocka_unit_test(test_expect_keys_reports_unknown_key_at_key_position_with_known_list),
        cmocka_unit_test(test_expect_keys_accepts_known_keys_absent_maps_and_rejects_non_maps),
        cmocka_unit_test(test_get_treats_null_and_non_map_as_absent),
        cmocka_unit_test(test_int_accepts_decimal_underscores_and_exact_exponents),
        cmocka_unit_test(test_int_rejects_fractions_and_junk_as_not_an_integer),
        cmocka_unit_test(test_int_outside_range_names_bounds_and_value),
        cmocka_unit_test(test_quoted_number_is_a_string_not_a_number),
        cmocka_unit_test(test_missing_required_key_is_error_and_absent_optional_keeps_out),
        cmocka_unit_test(test_reader_on_wrong_kind_names_kind_found),
        cmocka_unit_test(test_double_accepts_numbers_and_rejects_nan_inf_and_junk),
        cmocka_unit_test(test_bool_accepts_true_false_yes_no_on_off_in_any_case),
        cmocka_unit_test(test_enum_returns_index_and_unknown_value_lists_known),
        cmocka_unit_test(test_as_readers_work_on_sequence_items_with_indexed_paths),
        cmocka_unit_test(test_duration_parses_numbers_and_unit_suffixes),
        cmocka_unit_test(test_duration_rejects_unknown_units_and_junk),
        cmocka_unit_test(test_duration_overflow_is_range_error),
        cmocka_unit_test(test_duration_reader_applies_min_and_max_to_negative_values),
        cmocka_unit_test(test_duration_quoted_with_unit_is_accepted_but_quoted_bare_number_is_not),
        cmocka_unit_test(test_set_overrides_existing_value_with_set_position),
        cmocka_unit_test(test_set_creates_missing_keys_and_sections),
        cmocka_unit_test(test_set_on_empty_document_creates_root_map),
        cmocka_unit_test(test_set_numeric_segment_indexes_a_sequence),
        cmocka_unit_test(test_set_parses_flow_values_and_keeps_plain_scalars),
        cmocka_unit_test(test_set_rejects_malformed_assignments_with_set_position),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
