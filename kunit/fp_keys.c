// SPDX-License-Identifier: GPL-2.0-only
/*
 * The core's two global switches, which choose between a driver's inline
 * unmap path and fp_unmap() (fp_unmap_pages()), held as a case needs them
 * and put back however the case ends: other suites run after it.
 */
#include <kunit/resource.h>
#include <kunit/test.h>

#include "../core/fp_core.h"
#include "fp_rig.h"

static void fpt_estimate_resume(void *unused)
{
	fp_estimate_key_resume();
}

/**
 * fpt_estimate_hold_off() - the estimate's key off for the case
 * @test: the case
 *
 * As on a machine where no policy that reads the footprint is registered.
 * On again at fpt_estimate_release(), or when the case ends.  Not nested.
 */
void fpt_estimate_hold_off(struct kunit *test)
{
	fp_estimate_key_suspend();
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							fpt_estimate_resume,
							NULL), 0);
	KUNIT_ASSERT_FALSE(test, static_key_enabled(&fp_estimate_key.key));
}

/**
 * fpt_estimate_release() - the estimate's key as fpt_estimate_hold_off()
 *	found it
 * @test: the case
 */
void fpt_estimate_release(struct kunit *test)
{
	kunit_release_action(test, fpt_estimate_resume, NULL);
}

static void fpt_latency_off(void *unused)
{
	fpt_write_file(FPT_LATENCY, "0\n", 2);
}

/**
 * fpt_latency_off_at_end() - the latency histograms off when the case ends
 * @test: the case
 *
 * For a case that switches them itself through %FPT_LATENCY.
 */
void fpt_latency_off_at_end(struct kunit *test)
{
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fpt_latency_off,
							NULL), 0);
}

/**
 * fpt_latency_set() - switch the latency histograms, as a user writes
 *	%FPT_LATENCY
 * @test: the case
 * @on: on, until fpt_latency_set() off or the case's end; or off
 *
 * The write is asserted.
 */
void fpt_latency_set(struct kunit *test, bool on)
{
	KUNIT_ASSERT_EQ(test, fpt_write_file(FPT_LATENCY, on ? "1\n" : "0\n",
					     2), 2);
	if (on)
		fpt_latency_off_at_end(test);
	else
		kunit_remove_action(test, fpt_latency_off, NULL);
}
