/* 08_multi_gpu/steps.c - the steps of stage 08, for its program's --step (each step
 * file's mg_sort and MG_STEP_NAME, renamed mg_sort_K and mg_step_name_K by the build).
 * MG_STEP_ENTRY's second word: whether the step's parts are the exact shares. */
#include "mg.h"

#define MG_STEP_DECLARE(k)                                               \
    int mg_sort_##k(mg_world *w, mg_times *t, char *err, size_t errlen); \
    extern const char *const mg_step_name_##k
#define MG_STEP_ENTRY(k, exact) {&mg_step_name_##k, mg_sort_##k, exact}

MG_STEP_DECLARE(1);
MG_STEP_DECLARE(2);
MG_STEP_DECLARE(3);
MG_STEP_DECLARE(4);

const mg_step MG_STEPS[] = {MG_STEP_ENTRY(1, 0), MG_STEP_ENTRY(2, 1), MG_STEP_ENTRY(3, 1),
                             MG_STEP_ENTRY(4, 1)};
const int MG_STEP_COUNT = sizeof MG_STEPS / sizeof MG_STEPS[0];
