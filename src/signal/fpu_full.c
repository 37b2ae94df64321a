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
 * task, have XRSTOR (or FXRSTOR) judge that copy under an exception-table
 * entry, as for any frame, and have the exit path load it.  Features the
 * frame does not restore (outside its xfeatures) get their init state, as
 * fpu__restore_sig() gives them.  The copy is what is judged and loaded.
 * PKRU is not taken from a full-context frame: the guest keeps its own.
 */
int ua__restore_fpstate_full(struct ua_task *t, bool block, uint64_t fp,
			     struct ua_fpu_restored *out)
{
	unsigned char *buf = t->xsave_ret;
	struct {
		uint32_t magic1, ext;
		uint64_t xfeat;
		uint32_t xsize;
	} __attribute__((packed)) sw;
	struct ua_fpu_ctl ctl;
	uint32_t magic2;
	uint64_t rfbm, bv;

	out->pkru_valid = false;
	out->mxcsr = 0x1f80;
	out->fcw = 0x037f;
	if (!fp) {
		t->fpu_restore = ua__xstate_init_image;
		return 0;
	}
	if (block && !ua__window_extend((void *)fp, ua__fpu_frame_size()))
		return -EFAULT;
	if (!block && !ua_access_ok((void *)fp, ua__fpu_frame_size()))
		return -EFAULT;
	COPY_FROM(&sw, (const void *)(fp + 464), sizeof(sw));
	if (ua__fpu.xsave && sw.magic1 == FP_XSTATE_MAGIC1 && sw.xsize >= 576 &&
	    sw.xsize <= ua__fpu.xstate_size && sw.xsize <= sw.ext) {
		GET(magic2, (const uint32_t *)(fp + sw.xsize));
		if (magic2 == FP_XSTATE_MAGIC2) {
			rfbm = sw.xfeat & ua__fpu.xfeatures & ~(1ull << 9);
			if (fp & 63)
				return -EINVAL;
			COPY_FROM(buf, (const void *)fp, ua__fpu.xstate_size);
			if (ua__fpu_xrstor(buf, rfbm, &ctl))
				return -EINVAL;
			bv = get64(buf + 512) & rfbm;
			put64(buf + 512, bv);
			if (rfbm & 0x6)
				out->mxcsr = ctl.mxcsr;
			if (rfbm & bv & 1)
				out->fcw = ctl.fcw;
			goto loaded;
		}
	}
	if (fp & 15)
		return -EINVAL;
	COPY_FROM(buf, (const void *)fp, 512);
	if (ua__fpu_fxrstor(buf, &ctl))
		return -EINVAL;
	out->mxcsr = ctl.mxcsr;
	out->fcw = ctl.fcw;
	if (ua__fpu.xsave) {
		/* FXRSTOR's effect: x87 and SSE from the frame, the rest init. */
		memset(buf + 512, 0, 64);
		put64(buf + 512, 0x3);
	}
loaded:
	/* The exit path's XRSTOR always loads MXCSR: the value the guest
	 * gets, init when the frame's features leave it out. */
	memcpy(buf + 24, &out->mxcsr, 4);
	t->fpu_restore = buf;
	return 0;
efault:
	return -EFAULT;
}
