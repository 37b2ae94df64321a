# Thin wrapper over Meson/Ninja for the README's two commands and install.
#   make bench    - install what is needed, build, run the benchmark report
#   make test     - install what is needed, build, run every test suite
#   make test-vm  - the CPU-dependent suites in QEMU VMs with and without
#                   protection keys (tools/vm-test, doc/testing.md)
#   make install PREFIX=/usr/local DESTDIR=/tmp/stage   (LIBDIR=lib)
BUILD ?= build
PREFIX ?= /usr/local
DESTDIR ?=
MESON_OPTS ?=

.PHONY: all deps build test test-asan test-generic test-clang test-vm bench install clean

all: build

deps:
	@tools/install-deps

# Libraries go to PREFIX/lib and the pkg-config file to PREFIX/lib/pkgconfig
# on every distribution (Meson's default on Debian is lib/<multiarch>), so
# the README's PKG_CONFIG_PATH and rpath lines hold as written.
LIBDIR ?= lib

$(BUILD)/build.ninja:
	meson setup $(BUILD) --prefix=$(PREFIX) --libdir=$(LIBDIR) $(MESON_OPTS)

build: $(BUILD)/build.ninja
	ninja -C $(BUILD)

test: deps build
	@tools/run-tests $(BUILD)

test-asan: deps
	@[ -f build-asan/build.ninja ] || meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false
	ninja -C build-asan
	@UA_SANITIZED=1 tools/run-tests build-asan

# The builds below test the library and the engine made another way;
# uabench's report and the installed tree (suites bench and install)
# are tools and packaging, which make test and test-asan already check
# and a different compiler or primitive does not change.  Of the real
# programs they run the test programs built static with glibc, every
# backend and trap path, in block frames only (UA_FRAMES,
# run_programs.py): the other builds of the same programs (static-pie,
# musl) and Debian's programs (suite linux-more) exercise the same
# engine code with other callers' bytes, which make test and test-asan
# run; both frame modes are written by the signal suites, which these
# builds run in full.
OTHER_BUILD_TESTS = --no-suite bench --no-suite install --no-suite linux-more
OTHER_BUILD_ENV = UA_FRAMES=block

# The portable primitives (what other architectures use), on this machine.
test-generic: deps
	@[ -f build-generic/build.ninja ] || meson setup build-generic -Dforce_generic_arch=true
	ninja -C build-generic
	@$(OTHER_BUILD_ENV) tools/run-tests build-generic $(OTHER_BUILD_TESTS)

# The suites built by Clang (Debian's clang, 14 on Debian 12): the
# oldest compiler the README supports besides GCC.
test-clang: deps
	@[ -f build-clang/build.ninja ] || CC=clang meson setup build-clang
	ninja -C build-clang
	@$(OTHER_BUILD_ENV) tools/run-tests build-clang $(OTHER_BUILD_TESTS)

# The suites that depend on CPU features (protection keys, FSGSBASE) in
# QEMU TCG VMs whose CPU has them and lacks them; VM_OPTS adds options
# (--cpu MODEL, --suite NAME, --filter REGEX: tools/vm-test --help).
VM_OPTS ?=
test-vm: deps build
	@tools/vm-test --build $(BUILD) $(VM_OPTS)

bench: deps build
	@tools/run-bench $(BUILD)

# PREFIX and LIBDIR are applied even to a build directory set up earlier
# with others; a relative DESTDIR is taken from where make runs, not from
# $(BUILD).  Installing as root into the system (no DESTDIR) refreshes the
# dynamic linker's cache so programs find libuaccess.so.0 straight away
# when PREFIX/lib is one of its directories (/usr/local/lib usually is).
install: build
	meson configure $(BUILD) --prefix=$(PREFIX) --libdir=$(LIBDIR)
	meson install -C $(BUILD) --destdir "$(abspath $(DESTDIR))"
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then ldconfig; fi

clean:
	rm -rf $(BUILD) $(BUILD)-clang19 $(BUILD)-clang19.log build-asan build-generic build-clang build-vm bench-report
