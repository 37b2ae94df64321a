// SPDX-License-Identifier: MIT
/*
 * The code sections of an ELF file mapped into the space, for the patch
 * trap (src/task/trap_patch.c): it patches only sites a sweep of a
 * section finds, and a sweep is exact only from where real code starts,
 * which the section headers name (a segment also holds headers and
 * data).  The loader calls this for the program's and the interpreter's
 * executable segments; mmap for every executable map of a file, which
 * is how a dynamic loader maps the libraries (glibc's
 * _dl_map_segments(): the object's span first, then each segment over it
 * with MAP_FIXED and its own protection).
 *
 * A file without section headers, or one that is not an x86-64 ELF
 * file, gives nothing: its sites stay on sud.
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linux_internal.h"

#define CODE_MAX_SHNUM 4096
#define CODE_MAX_SHSTRTAB ((size_t)1 << 20)

/* The loader reads its headers with it too (src/linux/loader.c). */
bool ua__lx_pread_full(int fd, void *buf, size_t n, uint64_t off)
{
	size_t done = 0;

	while (done < n) {
		ssize_t r = pread(fd, (char *)buf + done, n - done,
				  (off_t)(off + done));

		if (r <= 0)
			return false;
		done += (size_t)r;
	}
	return true;
}

/* Is [off, off + len) inside a file of size bytes? */
static bool in_file(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

/* A code section whose bytes all lie in the map of [off, off + len). */
static bool in_map(const Elf64_Shdr *s, uint64_t off, uint64_t len)
{
	uint64_t want = SHF_ALLOC | SHF_EXECINSTR;

	if (s->sh_type != SHT_PROGBITS || (s->sh_flags & want) != want ||
	    !s->sh_size || s->sh_offset < off)
		return false;
	return s->sh_offset - off <= len &&
	       s->sh_size <= len - (s->sh_offset - off);
}

static Elf64_Shdr *read_shdrs(int fd, const Elf64_Ehdr *eh, uint64_t size)
{
	size_t n = eh->e_shnum;
	Elf64_Shdr *sh;

	if (!n || n > CODE_MAX_SHNUM || eh->e_shentsize != sizeof(*sh) ||
	    !in_file(eh->e_shoff, n * sizeof(*sh), size))
		return NULL;
	sh = malloc(n * sizeof(*sh));
	if (sh && !ua__lx_pread_full(fd, sh, n * sizeof(*sh), eh->e_shoff)) {
		free(sh);
		sh = NULL;
	}
	return sh;
}

/* The section named .eh_frame, or NULL. */
static const Elf64_Shdr *eh_frame_of(int fd, const Elf64_Ehdr *eh,
				     const Elf64_Shdr *sh, uint64_t size)
{
	const Elf64_Shdr *st, *found = NULL;
	char *names;

	if (eh->e_shstrndx >= eh->e_shnum)
		return NULL;
	st = &sh[eh->e_shstrndx];
	if (st->sh_type != SHT_STRTAB || !st->sh_size ||
	    st->sh_size > CODE_MAX_SHSTRTAB ||
	    !in_file(st->sh_offset, st->sh_size, size))
		return NULL;
	names = malloc(st->sh_size + 1);
	if (!names)
		return NULL;
	if (ua__lx_pread_full(fd, names, st->sh_size, st->sh_offset)) {
		names[st->sh_size] = 0;
		for (size_t i = 0; i < eh->e_shnum && !found; i++)
			if (sh[i].sh_type == SHT_PROGBITS &&
			    (sh[i].sh_flags & SHF_ALLOC) && sh[i].sh_size &&
			    sh[i].sh_name < st->sh_size &&
			    !strcmp(names + sh[i].sh_name, ".eh_frame"))
				found = &sh[i];
	}
	free(names);
	return found;
}

/*
 * ua__lx_code_map() - the code sections in a map of an ELF file
 * @t: the task whose process maps it
 * @fd: the file (a host descriptor; read with pread, its offset kept)
 * @size: the file's size
 * @off: the file offset the map starts at
 * @len: the bytes of the file mapped from there
 * @addr: where in the space @off is
 *
 * Every code section whose bytes lie in the map is registered, with the
 * object's .eh_frame at the address the same bias gives it.
 */
void ua__lx_code_map(struct ua_task *t, int fd, uint64_t size, uint64_t off,
		     uint64_t len, uint64_t addr)
{
	const Elf64_Shdr *ehf;
	uint64_t bias = 0;
	struct ua__eh_src src = { 0 };
	const struct lx_vname *name;
	bool biased = false;
	Elf64_Shdr *sh;
	Elf64_Ehdr eh;

	if (!ua__lx_pread_full(fd, &eh, sizeof(eh), 0) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_machine != EM_X86_64)
		return;
	sh = read_shdrs(fd, &eh, size);
	if (!sh)
		return;
	for (size_t i = 0; i < eh.e_shnum && !biased; i++) {
		if (!in_map(&sh[i], off, len))
			continue;
		/* Where the file puts the section less where it was linked. */
		bias = addr + (sh[i].sh_offset - off) - sh[i].sh_addr;
		biased = true;
	}
	ehf = biased ? eh_frame_of(fd, &eh, sh, size) : NULL;
	if (ehf) {
		src.addr = ehf->sh_addr + bias;
		src.len = ehf->sh_size;
		src.off = ehf->sh_offset;
		/*
		 * Where the patch trap reads the table from (trap_patch.c):
		 * the file as the map's name recorded it, which the loader
		 * and mmap do before they come here.
		 */
		name = ua__lx_name_at(lx_proc(t), src.addr);
		if (name && name->path && name->path[0] == '/') {
			src.path = name->path;
			src.dev = name->dev;
			src.ino = name->ino;
		}
	}
	for (size_t i = 0; i < eh.e_shnum && biased; i++) {
		const Elf64_Shdr *s = &sh[i];

		if (!in_map(s, off, len))
			continue;
		/* A section linked elsewhere than the bias says: not ours. */
		if (s->sh_addr + bias != addr + (s->sh_offset - off))
			continue;
		ua__patch_add_code(t, addr + (s->sh_offset - off), s->sh_size,
				   &src);
	}
	free(sh);
}
