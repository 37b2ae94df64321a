// SPDX-License-Identifier: MIT
/*
 * The FP area of full-context frames: those built at an arbitrary
 * instruction (a guest fault, an asynchronous signal), where every vector
 * register is live.  The frame carries the complete XSAVE image of the
 * interrupted instant (xstate.c took it from the host's own frame), and
 * rt_sigreturn of such a frame loads the complete image back, after the
 * checks XRSTOR would apply, as the kernel's fpu__restore_sig() does.
 *
 * Syscall-boundary frames keep the small image of fpu.c: at a function
 * call the vector registers are dead.  rt_sigreturn tells the two apart by
 * the frame's address, noted when a full-context frame is built: a frame
 * taken for full that is not only costs a full load, which is what the
 * kernel does for every frame; a record lost (more than UA_FULL_FRAMES
 * full-context frames abandoned by longjmp) would lose vector state.
 */
#include <errno.h>
#include <string.h>

#include "frame.h"

static uint64_t get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static void put64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

void ua__note_full_frame(struct ua_sigstate *s, uint64_t frame)
{
	if (s->nfull == UA_FULL_FRAMES) {
		memmove(s->full_frames, s->full_frames + 1,
			sizeof(s->full_frames[0]) * (UA_FULL_FRAMES - 1));
		s->nfull--;
	}
	s->full_frames[s->nfull++] = frame;
}

bool ua__take_full_frame(struct ua_sigstate *s, uint64_t frame)
{
	for (int i = s->nfull - 1; i >= 0; i--) {
		if (s->full_frames[i] != frame)
			continue;
		/* Records above it were frames abandoned by longjmp. */
		s->nfull = i;
		return true;
	}
	return false;
}

/*
 * The image a new frame must carry in full, or NULL for the small one:
 * the interrupted state of a fault or interrupt, or the state a
 * full-context rt_sigreturn has just read and not yet loaded.
 */
const unsigned char *ua__full_image(const struct ua_task *t)
{
	if (t->full_ctx)
		return t->xsave_ctx;
	if (t->fpu_restore && t->fpu_restore == t->xsave_ret)
		return t->xsave_ret;
	return NULL;
}

int ua__write_full_image(bool block, const unsigned char *img, uint64_t fp)
{
	size_t n = ua__fpu.xsave ? ua__fpu.xstate_size : 512;

	COPY_TO((void *)fp, img, n);
	/* This engine's software-reserved bytes (the same facts as the
	 * host's) and only the features a frame may carry. */
	COPY_TO((void *)(fp + 464), ua__fpu_template() + 464, 48);
	if (ua__fpu.xsave)
		PUT(get64(img + 512) & ua__fpu.xfeatures,
		    (uint64_t *)(fp + 512));
	return 0;
efault:
	return -EFAULT;
}

/*
 * rt_sigreturn of a full-context frame: read the whole image into the
 * task, check it as XRSTOR (or FXRSTOR) would, and have the exit path
 * load it.  Features the frame does not restore (outside its xfeatures)
 * get their init state, as fpu__restore_sig() gives them.  The checks run
 * on the monitor's copy, so the image loaded is the image checked.
 */
int ua__restore_fpstate_full(struct ua_task *t, bool block, uint64_t fp)
{
	unsigned char *buf = t->xsave_ret;
	uint32_t magic1, ext, xsize, magic2, mxcsr, extent;
	uint64_t xfeat, rfbm = 0;
	uint16_t fcw;
	bool fx_only = true;

	if (!fp) {
		t->fpu_restore = ua__xstate_init_image;
		ua__fpu_fresh();
		return 0;
	}
	if (block && !ua__window_extend((void *)fp, ua__fpu_frame_size()))
		return -EFAULT;
	if (!block && !ua_access_ok((void *)fp, ua__fpu_frame_size()))
		return -EFAULT;
	COPY_FROM(buf, (const void *)fp, ua__fpu.xsave ? 576 : 512);
	memcpy(&magic1, buf + 464, 4);
	memcpy(&ext, buf + 468, 4);
	memcpy(&xfeat, buf + 472, 8);
	memcpy(&xsize, buf + 480, 4);
	if (ua__fpu.xsave && magic1 == FP_XSTATE_MAGIC1 && xsize >= 576 &&
	    xsize <= ua__fpu.xstate_size && xsize <= ext) {
		GET(magic2, (const uint32_t *)(fp + xsize));
		if (magic2 == FP_XSTATE_MAGIC2) {
			rfbm = xfeat & ua__fpu.xfeatures;
			fx_only = false;
		}
	}
	if (fp & (fx_only ? 15 : 63))
		return -EINVAL;
	if (ua__fpu_check(buf, fx_only ? NULL : buf + 512, rfbm, &mxcsr, &fcw))
		return -EINVAL;
	/*
	 * The exit path's XRSTOR always loads MXCSR; when the frame's
	 * features leave it out, the kernel's ends up with the init value,
	 * which ua__fpu_check() returned.
	 */
	memcpy(buf + 24, &mxcsr, 4);
	if (!fx_only) {
		extent = ua__fpu_read_extent(buf + 512, rfbm);
		if (extent > 576)
			COPY_FROM(buf + 576, (const void *)(fp + 576),
				  extent - 576);
		put64(buf + 512, get64(buf + 512) & rfbm);
	} else if (ua__fpu.xsave) {
		/* FXRSTOR's effect: x87 and SSE from the frame, the rest init. */
		memset(buf + 512, 0, 64);
		put64(buf + 512, 0x3);
	}
	ua__fpu_load_ctl(mxcsr, fcw);
	t->fpu_restore = buf;
	return 0;
efault:
	return -EFAULT;
}
