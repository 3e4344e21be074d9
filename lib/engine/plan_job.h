/* What the cost model (device_plan.h) weighs of a chain (plan_job.c). */
#ifndef GI_PLAN_JOB_H
#define GI_PLAN_JOB_H

#include "backend/backend.h"
#include "device_plan.h"

/* What the cost model weighs of a chain. */
gi__plan_job gi__plan_job_of_chain(const gi__chain *chain);
/* ...and of a hinted chain on an image of the hinted size; fails for a
 * hint the library would refuse to run. */
gi_status gi__plan_job_of_hint(const gi_plan_hint *h, gi__plan_job *j);

#endif
