/* 08_multi_gpu/steps.c - the steps of stage 08, for its program's --step (each step
 * file's mg_sort and MG_STEP_NAME, renamed mg_sort_K and mg_step_name_K by the build). */
#include "mg.h"

int mg_sort_1(mg_world *w, mg_times *t, char *err, size_t errlen);
int mg_sort_2(mg_world *w, mg_times *t, char *err, size_t errlen);
extern const char *const mg_step_name_1, *const mg_step_name_2;

const mg_step MG_STEPS[] = {
    {&mg_step_name_1, mg_sort_1, 0},
    {&mg_step_name_2, mg_sort_2, 1},
};
const int MG_STEP_COUNT = sizeof MG_STEPS / sizeof MG_STEPS[0];
