/*
 * tests/test_descriptors.c — descriptor arrays: one slot per element, the
 * element an access chain's constant index picks, or a run-time index per
 * wave or per lane (NonUniform), a runtime array sized by the case, the
 * separate samplers picked at run time, the refusal of a runtime array the
 * case gives no length, the case format's "element" and "views": "mips",
 * and the view of one mip that the simulator binds for each element.  The
 * kernels of kernels/descriptors/ run at every wave size in scripts/test.sh
 * and against lavapipe in test_backend.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case/case.h"
#include "img/img.h"
#include "isa/isa.h"
#include "sim/sim.h"
#include "tests/support/tsup.h"

#define HAS(text, needle) ck_assert_msg(strstr((text), (needle)) != NULL, "\"%s\" not in: %s", (needle), (text))

static const char *array_kernel =
    "#version 450\n"
    "layout(local_size_x = 4) in;\n"
    "layout(set = 0, binding = 2) readonly buffer In { uint v[4]; } src[3];\n"
    "layout(set = 0, binding = 0) buffer Out { uint o[4]; };\n"
    "void main() { uint i = gl_LocalInvocationIndex; o[i] = src[2].v[i] * 100u + src[0].v[i]; }\n";

START_TEST(test_descriptors_an_array_is_a_slot_per_element_and_a_constant_index_picks_one)
{
    isa_program *p = NULL;
    char msg[2048] = "";
    ck_assert_msg(tsup_build(array_kernel, "array.comp", "glsl", NULL, &p, msg, sizeof msg, NULL, 0) == ISA_OK, "%s",
                  msg);
    /* src[3] is three slots at set 0 binding 2, elements 0, 1, 2, named by element */
    int found[3] = {0};
    for (uint32_t s = 0; s < p->slot_count; s++) {
        const isa_slot *sl = &p->slots[s];
        if (sl->binding != 2)
            continue;
        ck_assert_uint_lt(sl->element, 3);
        char name[16];
        snprintf(name, sizeof name, "src[%u]", sl->element);
        ck_assert_str_eq(sl->name, name);
        ck_assert_int_eq(sl->space, ISA_SPACE_STORAGE);
        ck_assert_uint_eq(sl->static_size, 16); /* one element's block: uint v[4] */
        found[sl->element]++;
    }
    ck_assert(found[0] == 1 && found[1] == 1 && found[2] == 1);
    /* the kernel reads elements 2 and 0 only: element 1 differs from both, and the results show which is read */
    uint32_t out[4] = {0}, e0[4] = {1, 2, 3, 4}, e1[4] = {50, 60, 70, 80}, e2[4] = {5, 6, 7, 8};
    sim_buffer bufs[4] = {
        {.set = 0, .binding = 0, .data = (uint8_t *)out, .size = sizeof out},
        {.set = 0, .binding = 2, .data = (uint8_t *)e1, .size = sizeof e1, .element = 1},
        {.set = 0, .binding = 2, .data = (uint8_t *)e0, .size = sizeof e0, .element = 0},
        {.set = 0, .binding = 2, .data = (uint8_t *)e2, .size = sizeof e2, .element = 2},
    };
    sim_config cfg = {.groups = {1, 1, 1}, .wave_size = 4, .buffers = bufs, .buffer_count = 4};
    sim_result r;
    ck_assert_int_eq(sim_run(p, &cfg, &r), SIM_OK);
    sim_result_free(&r);
    for (int i = 0; i < 4; i++)
        ck_assert_uint_eq(out[i], e2[i] * 100u + e0[i]);
    isa_program_destroy(p);
}
END_TEST

START_TEST(test_descriptors_a_missing_element_is_named_by_its_index)
{
    isa_program *p = NULL;
    char msg[2048] = "";
    ck_assert(tsup_build(array_kernel, "array.comp", "glsl", NULL, &p, msg, sizeof msg, NULL, 0) == ISA_OK);
    uint32_t out[4], e0[4] = {0};
    sim_buffer bufs[2] = {
        {.set = 0, .binding = 0, .data = (uint8_t *)out, .size = sizeof out},
        {.set = 0, .binding = 2, .data = (uint8_t *)e0, .size = sizeof e0, .element = 0},
    };
    sim_config cfg = {.groups = {1, 1, 1}, .wave_size = 4, .buffers = bufs, .buffer_count = 2};
    sim_result r;
    ck_assert_int_eq(sim_run(p, &cfg, &r), SIM_ERR_CONFIG);
    ck_assert_int_eq(r.fault, SIM_FAULT_MISSING_BINDING);
    HAS(r.fault_event.message, "src[1]");
    sim_result_free(&r);
    isa_program_destroy(p);
}
END_TEST

/* Lowers a kernel with one declaration and one statement in main; returns the status, the message in msg. */
static isa_status lower_kernel(const char *decl, const char *body, char *msg, size_t msg_size)
{
    char src[2048];
    snprintf(src, sizeof src,
             "#version 450\n#extension GL_EXT_nonuniform_qualifier : enable\nlayout(local_size_x = 4) in;\n"
             "layout(set = 0, binding = 0) buffer Out { uint o[4]; };\n%s\nvoid main() { uint i = "
             "gl_LocalInvocationIndex; %s }\n", decl, body);
    isa_program *p = NULL;
    isa_status st = tsup_build(src, "k.comp", "glsl", NULL, &p, msg, msg_size, NULL, 0);
    if (st == ISA_OK)
        isa_program_destroy(p);
    return st;
}

/* src[3] read by a dynamically uniform index (the workgroup) and by a per-lane one (nonuniformEXT); `index`
 * replaces the per-lane index expression. */
static isa_program *run_time_index_kernel(const char *index)
{
    char src[1024];
    snprintf(src, sizeof src,
             "#version 450\n#extension GL_EXT_nonuniform_qualifier : enable\nlayout(local_size_x = 4) in;\n"
             "layout(set = 0, binding = 2) readonly buffer In { uint v[4]; } src[3];\n"
             "layout(set = 0, binding = 0) buffer Out { uint o[8]; };\n"
             "void main() { uint i = gl_LocalInvocationIndex; uint g = gl_WorkGroupID.x;\n"
             "  o[g * 4u + i] = src[g].v[i] * 100u + src[%s].v[i]; }\n", index);
    isa_program *p = NULL;
    char msg[2048] = "";
    ck_assert_msg(tsup_build(src, "k.comp", "glsl", NULL, &p, msg, sizeof msg, NULL, 0) == ISA_OK, "%s", msg);
    return p;
}

static uint32_t e0[4] = {1, 2, 3, 4}, e1[4] = {50, 60, 70, 80}, e2[4] = {5, 6, 7, 8};
static uint32_t *const elems[3] = {e0, e1, e2};

/* Runs p on two workgroups of one wave of 4 with src[] = e0, e1, e2; the status, *r filled, out written. */
static sim_status run_three(const isa_program *p, uint32_t out[8], sim_result *r)
{
    sim_buffer bufs[4] = {
        {.set = 0, .binding = 0, .data = (uint8_t *)out, .size = 8 * sizeof *out},
        {.set = 0, .binding = 2, .data = (uint8_t *)e0, .size = sizeof e0, .element = 0},
        {.set = 0, .binding = 2, .data = (uint8_t *)e1, .size = sizeof e1, .element = 1},
        {.set = 0, .binding = 2, .data = (uint8_t *)e2, .size = sizeof e2, .element = 2},
    };
    sim_config cfg = {.groups = {2, 1, 1}, .wave_size = 4, .buffers = bufs, .buffer_count = 4, .threads = 1};
    return sim_run(p, &cfg, r);
}

START_TEST(test_descriptors_a_run_time_index_picks_the_element_per_wave_or_per_lane)
{
    isa_program *p = run_time_index_kernel("nonuniformEXT(i % 3u)");
    /* two loads of src: one indexed by a uniform register, one per lane, both from element 0's slot on */
    uint32_t uniform_pc = UINT32_MAX, lane_pc = UINT32_MAX;
    for (uint32_t pc = 0; pc < p->code_count; pc++) {
        const isa_inst *in = &p->code[pc];
        if (in->op != ISA_OP_LOAD || in->desc_index == ISA_DESC_NONE)
            continue;
        ck_assert_str_eq(p->slots[in->slot].name, "src[0]");
        if (in->desc_index == ISA_DESC_UNIFORM)
            uniform_pc = pc;
        else
            lane_pc = pc;
    }
    ck_assert_uint_ne(uniform_pc, UINT32_MAX);
    ck_assert_uint_ne(lane_pc, UINT32_MAX);
    uint32_t out[8] = {0};
    sim_result r;
    ck_assert_int_eq(run_three(p, out, &r), SIM_OK);
    for (uint32_t g = 0; g < 2; g++)
        for (uint32_t i = 0; i < 4; i++)
            ck_assert_uint_eq(out[g * 4 + i], elems[g][i] * 100u + elems[i % 3][i]);
    /* per lane: lanes 0..3 name elements 0, 1, 2, 0: three rounds a wave, two waves (AMD's waterfall loop) */
    ck_assert_uint_eq(r.stats.inst_executions[lane_pc], 2 * 3);
    ck_assert_uint_eq(r.stats.inst_executions[uniform_pc], 2);
    ck_assert_uint_eq(r.stats.waterfall_rounds, 2 * 2); /* two rounds past the first in each wave */
    sim_result_free(&r);
    isa_program_destroy(p);
}
END_TEST

START_TEST(test_descriptors_a_length_picked_per_lane_is_a_vector_value)
{
    /* a runtime array's length is one value for the wave (scalar) unless each lane picks its own buffer */
    static const char *src = "#version 450\n#extension GL_EXT_nonuniform_qualifier : enable\n"
                             "layout(local_size_x = 4) in;\n"
                             "layout(set = 0, binding = 2) readonly buffer In { uint v[]; } src[3];\n"
                             "layout(set = 0, binding = 0) buffer Out { uint o[8]; };\n"
                             "void main() { uint i = gl_LocalInvocationIndex; uint g = gl_WorkGroupID.x;\n"
                             "  o[g * 4u + i] = uint(src[g].v.length()) * 10u + "
                             "uint(src[nonuniformEXT(i % 3u)].v.length()); }\n";
    isa_program *p = NULL;
    char msg[2048] = "";
    ck_assert_msg(tsup_build(src, "k.comp", "glsl", NULL, &p, msg, sizeof msg, NULL, 0) == ISA_OK, "%s", msg);
    int seen[3] = {0};
    for (uint32_t pc = 0; pc < p->code_count; pc++) {
        const isa_inst *in = &p->code[pc];
        if (in->op != ISA_OP_ARRAY_LEN)
            continue;
        ck_assert_uint_ne(in->desc_index, ISA_DESC_NONE);
        ck_assert_int_eq(in->cls, in->desc_index == ISA_DESC_UNIFORM ? ISA_CLASS_SALU : ISA_CLASS_VALU);
        seen[in->desc_index]++;
    }
    ck_assert(seen[ISA_DESC_UNIFORM] == 1 && seen[ISA_DESC_NONUNIFORM] == 1);
    /* elements of 4, 2 and 3 words */
    uint32_t out[8] = {0}, words[4] = {0}, len[3] = {4, 2, 3};
    sim_buffer bufs[4] = {{.set = 0, .binding = 0, .data = (uint8_t *)out, .size = sizeof out}};
    for (uint32_t e = 0; e < 3; e++)
        bufs[1 + e] = (sim_buffer){.set = 0, .binding = 2, .element = e, .data = (uint8_t *)words, .size = 4 * len[e]};
    sim_config cfg = {.groups = {2, 1, 1}, .wave_size = 4, .buffers = bufs, .buffer_count = 4, .threads = 1};
    sim_result r;
    ck_assert_int_eq(sim_run(p, &cfg, &r), SIM_OK);
    for (uint32_t g = 0; g < 2; g++)
        for (uint32_t i = 0; i < 4; i++)
            ck_assert_uint_eq(out[g * 4 + i], len[g] * 10u + len[i % 3]);
    sim_result_free(&r);
    isa_program_destroy(p);
}
END_TEST

/* Runs run_time_index_kernel(index) on run_three's buffers: it faults with `kind`, the message holding each of
 * `words` (NULL-terminated). */
static void expect_index_fault(const char *index, sim_fault_kind kind, const char *const *words)
{
    isa_program *p = run_time_index_kernel(index);
    uint32_t out[8] = {0};
    sim_result r;
    ck_assert_int_eq(run_three(p, out, &r), SIM_FAULT);
    ck_assert_int_eq(r.fault, kind);
    for (; *words; words++)
        HAS(r.fault_event.message, *words);
    sim_result_free(&r);
    isa_program_destroy(p);
}

START_TEST(test_descriptors_lanes_that_disagree_without_nonuniform_are_a_fault)
{
    /* Vulkan: an index into an array of buffers without NonUniform must be dynamically uniform */
    static const char *const words[] = {
        "descriptor array 'src' is indexed by a value that is not uniform across the wave",
        "lane 0: element 0, lane 1: element 1", "not decorated NonUniform", NULL};
    expect_index_fault("i % 3u", SIM_FAULT_UNSUPPORTED, words);
}
END_TEST

START_TEST(test_descriptors_an_index_past_the_array_is_a_fault_naming_the_lane)
{
    static const char *const words[] = {"descriptor array 'src' of 3 elements is indexed by 3 (lane 2)", NULL};
    expect_index_fault("nonuniformEXT(i + 1u)", SIM_FAULT_OUT_OF_BOUNDS, words);
}
END_TEST

/* A 2x1 r32f texture (10, 20), as t and as both elements of ta[2], sampled at u = 1.25 (texel 2.5) through
 * `combined` (sampler2D(t, s[IDX]) or sampler2D(ta[...], s[...])), s[0] clamping (texel 1: 20) and s[1] repeating
 * (texel 0: 10); the status, out[] and *r as the run leaves them. */
static sim_status run_sampler_index(const char *combined, uint32_t out[4], sim_result *r)
{
    char body[256], msg[2048] = "";
    snprintf(body, sizeof body, "o[i] = uint(textureLod(%s, vec2(1.25, 0.5), 0.0).x);", combined);
    char src[2048];
    snprintf(src, sizeof src,
             "#version 450\n#extension GL_EXT_nonuniform_qualifier : enable\nlayout(local_size_x = 4) in;\n"
             "layout(set = 0, binding = 0) buffer Out { uint o[4]; };\n"
             "layout(set = 0, binding = 1) uniform texture2D t;\nlayout(set = 0, binding = 2) uniform sampler s[2];\n"
             "layout(set = 0, binding = 3) uniform texture2D ta[2];\n"
             "void main() { uint i = gl_LocalInvocationIndex; %s }\n", body);
    isa_program *p = NULL;
    ck_assert_msg(tsup_build(src, "k.comp", "glsl", NULL, &p, msg, sizeof msg, NULL, 0) == ISA_OK, "%s", msg);
    float texels[2] = {10.0f, 20.0f};
    img_image im = {.dim = IMG_DIM_2D, .format = IMG_FMT_R32_SFLOAT, .width = 2, .height = 1, .depth = 1,
                    .layers = 1, .mip_levels = 1, .bytes = (uint8_t *)texels, .size = sizeof texels};
    img_sampler clamp, repeat;
    img_sampler_default(&clamp);
    img_sampler_default(&repeat);
    clamp.address[0] = clamp.address[1] = clamp.address[2] = IMG_ADDRESS_CLAMP_TO_EDGE;
    sim_buffer buf = {.set = 0, .binding = 0, .data = (uint8_t *)out, .size = 4 * sizeof *out};
    sim_image images[5] = {{.set = 0, .binding = 1, .image = &im},
                           {.set = 0, .binding = 2, .sampler = &clamp, .element = 0},
                           {.set = 0, .binding = 2, .sampler = &repeat, .element = 1},
                           {.set = 0, .binding = 3, .image = &im, .element = 0},
                           {.set = 0, .binding = 3, .image = &im, .element = 1}};
    sim_config cfg = {.groups = {1, 1, 1}, .wave_size = 4, .buffers = &buf, .buffer_count = 1, .images = images,
                      .image_count = 5, .threads = 1};
    sim_status st = sim_run(p, &cfg, r);
    isa_program_destroy(p);
    return st;
}

/* run_sampler_index(combined) runs, lanes 0 and 2 clamp (20), 1 and 3 repeat (10), in `rounds` extra rounds. */
static void sampler_index_runs(const char *combined, uint64_t rounds)
{
    static const uint32_t want[4] = {20, 10, 20, 10};
    uint32_t out[4] = {0};
    sim_result r;
    ck_assert_int_eq(run_sampler_index(combined, out, &r), SIM_OK);
    for (int i = 0; i < 4; i++)
        ck_assert_uint_eq(out[i], want[i]);
    ck_assert_uint_eq(r.stats.waterfall_rounds, rounds);
    sim_result_free(&r);
}

/* run_sampler_index(combined) faults with `kind`, the message holding `words`. */
static void sampler_index_faults(const char *combined, sim_fault_kind kind, const char *words)
{
    uint32_t out[4] = {0};
    sim_result r;
    ck_assert_int_eq(run_sampler_index(combined, out, &r), SIM_FAULT);
    ck_assert_int_eq(r.fault, kind);
    HAS(r.fault_event.message, words);
    sim_result_free(&r);
}

START_TEST(test_descriptors_a_sampler_picked_at_run_time_samples_with_that_sampler)
{
    /* per lane (NonUniform): two rounds (one extra) */
    sampler_index_runs("sampler2D(t, s[nonuniformEXT(i & 1u)])", 1);
    /* the same index without NonUniform: Vulkan requires it dynamically uniform; the fault names the sampler array */
    sampler_index_faults("sampler2D(t, s[i & 1u])", SIM_FAULT_UNSUPPORTED,
                         "descriptor array 's' is indexed by a value that is not uniform across the wave "
                         "(lane 0: element 0, lane 1: element 1)");
    /* lane 2 names s[2], past the array */
    sampler_index_faults("sampler2D(t, s[nonuniformEXT(i)])", SIM_FAULT_OUT_OF_BOUNDS,
                         "descriptor array 's' of 2 elements is indexed by 2 (lane 2)");
    /* a pair: the texture per lane (NonUniform), the sampler too: four distinct pairs, three extra rounds */
    sampler_index_runs("sampler2D(ta[nonuniformEXT(i >> 1)], s[nonuniformEXT(i & 1u)])", 3);
    /* the texture NonUniform, the sampler's index not so marked yet differing: still a fault, naming s */
    sampler_index_faults("sampler2D(ta[nonuniformEXT(i >> 1)], s[i & 1u])", SIM_FAULT_UNSUPPORTED,
                         "descriptor array 's' is indexed by a value that is not uniform across the wave "
                         "(lane 0: element 0, lane 1: element 1)");
    /* and the other way round: the sampler NonUniform, the texture's index differing without the mark */
    sampler_index_faults("sampler2D(ta[i >> 1], s[nonuniformEXT(i & 1u)])", SIM_FAULT_UNSUPPORTED,
                         "descriptor array 'ta' is indexed by a value that is not uniform across the wave "
                         "(lane 0: element 0, lane 2: element 1)");
}
END_TEST

START_TEST(test_descriptors_a_runtime_array_takes_its_length_from_the_case)
{
    char msg[2048] = "";
    /* no length given: refused, naming the array and its binding */
    isa_status st = lower_kernel("layout(set = 0, binding = 1) readonly buffer In { uint v[4]; } src[];",
                                 "o[i] = src[nonuniformEXT(i)].v[i];", msg, sizeof msg);
    ck_assert_int_eq(st, ISA_ERR_UNSUPPORTED);
    HAS(msg, "descriptor array 'src'");
    HAS(msg, "at set 0 binding 1 has no length");
    /* the case's length (set 0 binding 1: 4 elements; another binding's length does not apply): four slots, and
     * lane i reads element i */
    static const char *src = "#version 450\n#extension GL_EXT_nonuniform_qualifier : enable\n"
                             "layout(local_size_x = 4) in;\n"
                             "layout(set = 0, binding = 1) readonly buffer In { uint v[4]; } src[];\n"
                             "layout(set = 0, binding = 0) buffer Out { uint o[4]; };\n"
                             "void main() { uint i = gl_LocalInvocationIndex; o[i] = src[nonuniformEXT(i)].v[i]; }\n";
    isa_compile_options o = {.path = "k.comp", .source = src, .language = "glsl"};
    uint32_t *words = NULL;
    size_t n = 0;
    ck_assert_int_eq(isa_compile(&o, &words, &n, msg, sizeof msg, NULL, 0), ISA_OK);
    const isa_array_length lengths[2] = {{0, 0, 1}, {0, 1, 4}};
    isa_spec spec = {.arrays = lengths, .array_count = 2};
    isa_program *p = NULL;
    ck_assert_msg(isa_lower_spec(words, n, NULL, &spec, &p, msg, sizeof msg) == ISA_OK, "%s", msg);
    free(words);
    uint32_t elements = 0;
    for (uint32_t s = 0; s < p->slot_count; s++)
        if (p->slots[s].binding == 1) {
            ck_assert_uint_eq(p->slots[s].elements, 4);
            elements++;
        }
    ck_assert_uint_eq(elements, 4);
    uint32_t out[4] = {0}, in[4][4];
    sim_buffer bufs[5] = {{.set = 0, .binding = 0, .data = (uint8_t *)out, .size = sizeof out}};
    for (uint32_t e = 0; e < 4; e++) {
        for (uint32_t k = 0; k < 4; k++)
            in[e][k] = 10 * e + k;
        bufs[1 + e] = (sim_buffer){.set = 0, .binding = 1, .element = e, .data = (uint8_t *)in[e], .size = 16};
    }
    sim_config cfg = {.groups = {1, 1, 1}, .wave_size = 4, .buffers = bufs, .buffer_count = 5};
    sim_result r;
    ck_assert_int_eq(sim_run(p, &cfg, &r), SIM_OK);
    sim_result_free(&r);
    for (uint32_t i = 0; i < 4; i++)
        ck_assert_uint_eq(out[i], 10 * i + i);
    isa_program_destroy(p);
}
END_TEST

/* Writes the case text as c.json in a new temporary directory *dir, array.comp beside it; returns its path. */
static char *write_case(const char *json, char **dir)
{
    *dir = tsup_temp_dir();
    free(tsup_write_file(*dir, "array.comp", array_kernel));
    return tsup_write_file(*dir, "c.json", json);
}

static void remove_case(char *dir, char *path)
{
    free(path);
    tsup_remove_dir(dir);
    free(dir);
}

/* Loads a case from text (kernel array.comp beside it); returns the status, the message in err. */
static case_status load_text(const char *json, char *err, size_t err_size)
{
    char *dir, *path = write_case(json, &dir);
    wl_case *c = NULL;
    case_status st = case_load(path, &c, err, err_size);
    case_destroy(c);
    remove_case(dir, path);
    return st;
}

START_TEST(test_descriptors_case_elements_and_mip_views_that_overlap_are_refused)
{
    char err[1024] = "";
    /* two bindings of one element */
    ck_assert_int_ne(load_text("{\"kernel\": \"array.comp\", \"bindings\": ["
                               "{\"binding\": 2, \"element\": 1, \"type\": \"u32\", \"data\": [1]},"
                               "{\"binding\": 2, \"element\": 1, \"type\": \"u32\", \"data\": [1]}]}",
                               err, sizeof err),
                     CASE_OK);
    HAS(err, "bindings[1].binding");
    HAS(err, "already used by bindings[0]");
    /* a 3-mip image of views fills elements 2, 3, 4: element 4 is taken */
    ck_assert_int_ne(load_text("{\"kernel\": \"array.comp\", \"bindings\": ["
                               "{\"binding\": 1, \"element\": 2, \"kind\": \"storage_image\", \"format\": \"r32f\", "
                               "\"dim\": \"2d\", \"extent\": [4, 4], \"mip_levels\": 3, \"views\": \"mips\"},"
                               "{\"binding\": 1, \"element\": 4, \"kind\": \"storage_image\", \"format\": \"r32f\", "
                               "\"dim\": \"2d\", \"extent\": [4, 4]}]}",
                               err, sizeof err),
                     CASE_OK);
    HAS(err, "already used by bindings[0]");
    /* element 5 is free */
    ck_assert_int_eq(load_text("{\"kernel\": \"array.comp\", \"bindings\": ["
                               "{\"binding\": 1, \"element\": 2, \"kind\": \"storage_image\", \"format\": \"r32f\", "
                               "\"dim\": \"2d\", \"extent\": [4, 4], \"mip_levels\": 3, \"views\": \"mips\"},"
                               "{\"binding\": 1, \"element\": 5, \"kind\": \"storage_image\", \"format\": \"r32f\", "
                               "\"dim\": \"2d\", \"extent\": [4, 4]}]}",
                               err, sizeof err),
                     CASE_OK);
    /* "views" takes "mips" or "layers", and "layers" an image of one level */
    ck_assert_int_ne(load_text("{\"kernel\": \"array.comp\", \"bindings\": ["
                               "{\"binding\": 1, \"kind\": \"storage_image\", \"format\": \"r32f\", "
                               "\"dim\": \"2d\", \"extent\": [4, 4], \"views\": \"faces\"}]}",
                               err, sizeof err),
                     CASE_OK);
    HAS(err, "bindings[0].views");
    ck_assert_int_ne(load_text("{\"kernel\": \"array.comp\", \"bindings\": ["
                               "{\"binding\": 1, \"kind\": \"storage_image\", \"format\": \"r32f\", "
                               "\"dim\": \"2d\", \"extent\": [4, 4], \"layers\": 2, \"mip_levels\": 2, "
                               "\"views\": \"layers\"}]}",
                               err, sizeof err),
                     CASE_OK);
    HAS(err, "takes an image of one mip level");
    /* an expectation names a view binding by its first element */
    ck_assert_int_ne(load_text("{\"kernel\": \"array.comp\", \"bindings\": ["
                               "{\"binding\": 1, \"kind\": \"storage_image\", \"format\": \"r32f\", "
                               "\"dim\": \"2d\", \"extent\": [4, 4], \"mip_levels\": 3, \"views\": \"mips\"}], "
                               "\"expect\": [{\"binding\": 1, \"element\": 1, \"mip\": 1, \"data\": [0, 0, 0, 0]}]}",
                               err, sizeof err),
                     CASE_OK);
    HAS(err, "expect[0].binding");
    HAS(err, "by its first element");
}
END_TEST

START_TEST(test_descriptors_a_mip_or_layer_view_is_that_level_or_layer_alone_in_the_same_bytes)
{
    /* an 8x4 rgba8 image of 4 mips, 2 layers: levels 8x4, 4x2, 2x1, 1x1 of 4 bytes a texel, layers together */
    uint8_t bytes[(32 + 8 + 2 + 1) * 2 * 4];
    img_image im = {.dim = IMG_DIM_2D, .format = IMG_FMT_R8G8B8A8_UNORM, .width = 8, .height = 4, .depth = 1,
                    .layers = 2, .mip_levels = 4, .bytes = bytes, .size = sizeof bytes};
    ck_assert_uint_eq(img_image_bytes(&im), sizeof bytes);
    img_image v = im;
    img_mip_view(&v, 2);
    ck_assert_uint_eq(v.width, 2);
    ck_assert_uint_eq(v.height, 1);
    ck_assert_uint_eq(v.depth, 1);
    ck_assert_uint_eq(v.mip_levels, 1);
    ck_assert_uint_eq(v.layers, 2);
    ck_assert_ptr_eq(v.bytes, bytes + (32 + 8) * 2 * 4); /* after levels 0 and 1, both layers of each */
    ck_assert_uint_eq(v.size, 2 * 2 * 4);
    ck_assert_uint_eq(img_image_bytes(&v), v.size);
    /* a cube of 6 faces, 4x4 r32f, one level: face 3 is a 2d image of 64 bytes, 3 faces in */
    uint8_t cube[6 * 64];
    img_image c = {.dim = IMG_DIM_CUBE, .format = IMG_FMT_R32_SFLOAT, .width = 4, .height = 4, .depth = 1,
                   .layers = 6, .mip_levels = 1, .bytes = cube, .size = sizeof cube};
    img_layer_view(&c, 3);
    ck_assert_int_eq(c.dim, IMG_DIM_2D);
    ck_assert_uint_eq(c.layers, 1);
    ck_assert_ptr_eq(c.bytes, cube + 3 * 64);
    ck_assert_uint_eq(c.size, 64);
}
END_TEST

/* Runs `wavelab run` on a case beside array.comp; returns the exit status, the output in *out. */
static int run_text(const char *json, char **out)
{
    char *dir, *path = write_case(json, &dir);
    char args[4200];
    snprintf(args, sizeof args, "run '%s' --quiet", path);
    int rc = tsup_run_cli(args, out);
    remove_case(dir, path);
    return rc;
}

START_TEST(test_descriptors_messages_name_the_element)
{
    /* array.comp's src[3] at binding 2: element 1 missing is named, element 5 spare is warned about */
    char *out = NULL;
    ck_assert_int_eq(run_text("{\"kernel\": \"array.comp\", \"bindings\": ["
                              "{\"binding\": 0, \"type\": \"u32\", \"count\": 4},"
                              "{\"binding\": 2, \"element\": 0, \"type\": \"u32\", \"count\": 4},"
                              "{\"binding\": 2, \"element\": 2, \"type\": \"u32\", \"count\": 4}]}",
                              &out),
                     2);
    HAS(out, "the kernel uses set 0 binding 2 element 1 ('src[1]'");
    free(out);
    out = NULL;
    ck_assert_int_eq(run_text("{\"kernel\": \"array.comp\", \"bindings\": ["
                              "{\"binding\": 0, \"type\": \"u32\", \"count\": 4},"
                              "{\"binding\": 2, \"element\": 0, \"type\": \"u32\", \"count\": 4},"
                              "{\"binding\": 2, \"element\": 1, \"type\": \"u32\", \"count\": 4},"
                              "{\"binding\": 2, \"element\": 2, \"type\": \"u32\", \"count\": 4},"
                              "{\"binding\": 2, \"element\": 5, \"type\": \"u32\", \"count\": 4}]}",
                              &out),
                     0);
    HAS(out, "warning: bindings (set 0 binding 2 element 5): the kernel does not use this binding");
    free(out);
}
END_TEST

static Suite *descriptors_suite(void)
{
    Suite *s = suite_create("descriptors");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_descriptors_an_array_is_a_slot_per_element_and_a_constant_index_picks_one);
    tcase_add_test(tc, test_descriptors_a_missing_element_is_named_by_its_index);
    tcase_add_test(tc, test_descriptors_a_run_time_index_picks_the_element_per_wave_or_per_lane);
    tcase_add_test(tc, test_descriptors_a_length_picked_per_lane_is_a_vector_value);
    tcase_add_test(tc, test_descriptors_lanes_that_disagree_without_nonuniform_are_a_fault);
    tcase_add_test(tc, test_descriptors_an_index_past_the_array_is_a_fault_naming_the_lane);
    tcase_add_test(tc, test_descriptors_a_sampler_picked_at_run_time_samples_with_that_sampler);
    tcase_add_test(tc, test_descriptors_a_runtime_array_takes_its_length_from_the_case);
    tcase_add_test(tc, test_descriptors_case_elements_and_mip_views_that_overlap_are_refused);
    tcase_add_test(tc, test_descriptors_a_mip_or_layer_view_is_that_level_or_layer_alone_in_the_same_bytes);
    tcase_add_test(tc, test_descriptors_messages_name_the_element);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tsup_run_suite(descriptors_suite(), "descriptors");
}
