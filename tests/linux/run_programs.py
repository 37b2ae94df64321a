#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Run real programs natively and under uarun and compare.

Every case runs natively once, then under uarun with every protection
backend (pkey skipped, with the reason, where the machine lacks it), both
frame modes and both trap paths (sud, and rewrite where page 0 can be
mapped: skipped with the reason elsewhere); stdout must be the same bytes
and the end the same (exit status, or death by the same signal).

usage: run_programs.py UARUN MODE [ARGS...]
  programs PROG...   the test programs (prog_signals, prog_files, ...)
  busybox            busybox applets
  dynamic            Debian's dynamically linked programs
  refuse             bad input is refused with a reason, never a crash
  trace              --trace shows decoded syscalls; stdout stays clean;
                     --stats lists rewritten sites under --trap=rewrite
Exit 77 (skipped) when a needed tool is missing.
"""
import difflib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

SKIP = 77
# meson test sets MALLOC_PERTURB_ so that glibc fills each malloc'd byte:
# prog_misc's 4 GiB malloc then writes 4 GiB, natively and under uarun,
# 20 s a run where it takes under one.  What it would catch (a caller
# reading uninitialised heap) is the programs' business, not uarun's:
# the programs run without it.
os.environ.pop('MALLOC_PERTURB_', None)
# Under the patch trap a site is patched at its first trap, not once its
# section's traps have paid for a sweep (uarun's default, auto): these
# programs make too few syscalls to reach that, and what is tested here
# is that patched code runs exactly.  patch_after() tests auto.
os.environ['UA_PATCH_AFTER'] = '1'
# Inside tools/vm-test's VMs (UA_VM=1), whose CPU features are the
# point and whose emulated time is dear, block frames only: how a frame
# is written (one window or one per field) depends on no CPU feature,
# and the host runs both.  UA_FRAMES (a comma-separated list) chooses
# them elsewhere: the Makefile's second and third builds (test-generic,
# test-clang) run block frames only, their signal suites both modes.
FRAMES = ['block'] if os.environ.get('UA_VM') == '1' else \
    os.environ.get('UA_FRAMES', 'block,per-access').split(',')
REFUSED_PAGE0 = 'needs page 0 for its trampoline'
_traps = None


def backends(uarun):
    """none and mprotect always; pkey where this machine has it."""
    out = ['none', 'mprotect']
    r = subprocess.run([uarun, '--protect=pkey', sys.executable, '-c', ''],
                       capture_output=True, text=True)
    if 'space' in r.stderr and r.returncode == 127:
        print('pkey: skipped (' + r.stderr.strip().splitlines()[0] + ')')
    else:
        out.append('pkey')
    return out


def traps(uarun, probe):
    """sud and patch (the default) always; rewrite unless page 0 cannot
    be mapped here (then the refusal is checked by mode_refuse, and the
    reason printed)."""
    global _traps
    if _traps is None:
        r = subprocess.run([uarun, '--trap=rewrite'] + probe,
                           stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, timeout=120)
        if REFUSED_PAGE0 in r.stderr:
            print('rewrite: skipped (' + r.stderr.strip().splitlines()[0]
                  + ')')
            _traps = ['sud', 'patch']
        else:
            _traps = ['sud', 'patch', 'rewrite']
    return _traps


def end(rc):
    if rc is None:
        return 'no end in %d s' % RUN_TIMEOUT
    return 'signal %d' % -rc if rc < 0 else 'exit %d' % rc


RUN_TIMEOUT = 120


def run(cmd, stdin, cwd, env):
    """A run that does not end is a failure like any other, with what it
    printed so far (where it stopped), not a traceback that ends the
    suite: its return code is None."""
    try:
        r = subprocess.run(cmd, input=stdin, capture_output=True, cwd=cwd,
                           env=env, timeout=RUN_TIMEOUT)
    except subprocess.TimeoutExpired as e:
        return e.stdout or b'', None, e.stderr or b''
    return r.stdout, r.returncode, r.stderr


def compare(uarun, bks, name, argv, stdin=b'', cwd=None, quiet=False,
            expect=None, frames=None, trap_list=None):
    """quiet: the program makes only calls the table has or numbers that
    are no syscall at all, so uarun must name none as not implemented.
    expect(trap, native): what uarun must print under a trap path whose
    documented difference shows (the red zone under rewrite)."""
    env = dict(os.environ)
    native_out, want_rc, _ = run(argv, stdin, cwd, env)
    if want_rc is None:
        print('FAIL %s: natively, %s' % (name, end(want_rc)))
        return 1
    want_out = native_out
    # A part the program skips on this machine (prog_cpu without
    # FSGSBASE) is skipped under uarun too: say so, with its reason.
    for line in want_out.decode(errors='replace').splitlines():
        if ': skipped (' in line:
            print('skip %s: %s' % (name, line))
    failures = 0
    tlist = trap_list or traps(uarun, argv)
    for b, f, t in [(b, f, t) for t in tlist
                    for b in bks for f in frames or FRAMES]:
        cmd = [uarun, '--protect=' + b, '--frames=' + f, '--trap=' + t] + \
            argv
        out, rc, err = run(cmd, stdin, cwd, env)
        named = quiet and b'not implemented' in err
        # A task left running when the process ended (a thread that
        # outlived exit_group) is a monitor bug whatever the output.
        stray = b'ua_space_destroy' in err
        want_out = expect(t, native_out) if expect else native_out
        if out != want_out or rc != want_rc or named or stray:
            failures += 1
            print('FAIL %s [%s, %s, %s]: native %s, uarun %s%s%s' %
                  (name, b, f, t, end(want_rc), end(rc),
                   ', a call named as not implemented' if named else '',
                   ', its space not destroyed' if stray else ''))
            if out != want_out:
                # The lines that differ, not a prefix that may not.
                d = difflib.unified_diff(
                    want_out.decode(errors='replace').splitlines(),
                    out.decode(errors='replace').splitlines(),
                    'native', 'uarun', lineterm='', n=1)
                for line in list(d)[:40]:
                    print('  ' + line)
            print('  uarun stderr: %r' % err[-500:])
        else:
            print('ok   %s [%s, %s, %s]: %s' % (name, b, f, t, end(rc)))
    return failures


# Inside tools/vm-test's VMs (UA_VM=1), whose CPU features are the
# point and whose emulated time is dear: the cases no CPU feature
# changes (processes made and exec'd, sockets) run on the host only.
IN_VM = os.environ.get('UA_VM') == '1'
HOST_ONLY_PROGS = ('prog_exec', 'prog_net', 'prog_procfs')


def mode_programs(uarun, progs):
    bks = backends(uarun)
    if IN_VM:
        print('frames: block only in the VM (per-access on the host)')
    fails = 0
    for p in progs:
        name = os.path.basename(p)
        if IN_VM and name.startswith(HOST_ONLY_PROGS):
            print('skip %s: in the VM (run on the host)' % name)
            continue
        if 'hostsig' in name:
            fails += host_signals(uarun, bks, name, p)
            continue
        if 'threads' in name:
            fails += compare(uarun, bks, name, [p])
            for how in ['segv', 'exit', 'mainexit']:
                fails += compare(uarun, bks, name + ' ' + how, [p, how])
            # 8 threads x 10^5 futex wake/wait pairs: a lost wake-up
            # hangs.  Once (every call traps, ~12x native under none;
            # the backend is not what it checks).
            fails += trace_threads(uarun, name, p)
            fails += host_signal_thread(uarun, bks, name, p)
            if IN_VM:
                print('skip %s stress: in the VM (run on the host)' % name)
                continue
            fails += compare(uarun, ['none'], name + ' stress',
                             [p, 'stress'], frames=['block'],
                             trap_list=['patch'])
            continue
        if 'timers' in name:
            # Its SIGEV_THREAD_ID and SIGEV_THREAD cases make threads.
            fails += compare(uarun, bks, name, [p])
            continue
        if 'procfs' in name:
            # Arguments for cmdline: one with a space, an empty one.
            fails += compare(uarun, bks, name, [p, 'one arg', '', 'three'])
            continue
        fails += compare(uarun, bks, name, [p],
                         quiet='edges' in name or 'calls' in name,
                         expect=space_expect(name) if 'misc' in name
                         else None)
        if 'signals' in name:
            fails += compare(uarun, bks, name + ' abort', [p, 'abort'])
            fails += compare(uarun, bks, name + ' segv', [p, 'segv'])
            fails += compare(uarun, bks, name + ' raise', [p, 'raise'])
            fails += compare(uarun, bks, name + ' itimer raise',
                             [p, 'itimer_raise'])
            for how in ['stack', 'fp']:
                fails += compare(uarun, bks, name + ' badframe ' + how,
                                 [p, 'badframe', how])
            for t in ['rewrite', 'patch']:
                fails += signal_at_site_exit(uarun, name, p, t)
        if 'trap' in name:
            fails += compare(uarun, bks, name + ' redzone', [p, 'redzone'],
                             expect=redzone_expect)
            fails += compare(uarun, bks, name + ' step', [p, 'step'])
            fails += compare(uarun, bks, name + ' fault', [p, 'fault'])
            fails += compare(uarun, bks, name + ' short', [p, 'short'])
            fails += compare(uarun, bks, name + ' shortstep',
                             [p, 'shortstep'])
            fails += compare(uarun, bks, name + ' int3', [p, 'int3'])
            fails += compare(uarun, bks, name + ' flags', [p, 'flags'])
            fails += patched_here(uarun, name, p)
    return fails


def host_signal_thread(uarun, bks, name, prog):
    """A SIGTERM from outside goes to the thread that does not block it,
    with the first thread gone (pthread_exit)."""
    fails = 0
    want = run_signalled([prog, 'hostsig'], [signal.SIGTERM])
    for b, t in [(b, t) for t in traps(uarun, [prog]) for b in bks]:
        cmd = [uarun, '--protect=' + b, '--trap=' + t, prog, 'hostsig']
        out, rc, err = run_signalled(cmd, [signal.SIGTERM])
        if (out, rc) != want[:2]:
            fails += 1
            print('FAIL %s hostsig [%s, %s]: native %s %r, uarun %s %r' %
                  (name, b, t, end(want[1]), want[0], end(rc), out))
            print('  uarun stderr: %r' % err[-500:])
        else:
            print('ok   %s hostsig [%s, %s]: %s' % (name, b, t, end(rc)))
    return fails


def trace_threads(uarun, name, prog):
    """--trace follows threads like strace -f: each new thread's id is
    what clone returned, and its lines, its exit among them, carry it."""
    r = subprocess.run([uarun, '--trace', prog], capture_output=True,
                       text=True, timeout=120)
    made = set(re.findall(r'clone3?\(.*\) = (\d+)$', r.stderr, re.M))
    ended = set(re.findall(r'^\[pid (\d+)\] exit\(0\) = \?$', r.stderr,
                           re.M))
    if r.returncode or not made or made != ended:
        print('FAIL %s trace: rc %d, threads made %s, ended %s' %
              (name, r.returncode, sorted(made), sorted(ended)))
        return 1
    print('ok   %s trace: %d threads, each line by its id' %
          (name, len(made)))
    return 0


def redzone_expect(trap, native):
    """Under rewrite, `call *%rax` pushes its return address over the red
    zone: the first run traps through sud, the next two are rewritten."""
    if trap != 'rewrite':
        return native
    return native.replace(b'redzone 1: kept', b'redzone 1: lost') \
        .replace(b'redzone 2: kept', b'redzone 2: lost')


def space_expect(name):
    """--trap=rewrite keeps a 1 GiB space (doc/uarun.md: its trampoline
    tail lives at low addresses a larger space would cover), so the 4 GiB
    allocation fails there.  So it does for an ET_EXEC program under a
    uarun built with ASan (UA_SANITIZED): the sanitizer's shadow starts at
    0x7fff8000, which leaves a space at 0x400000 under 2 GiB."""
    small_always = os.environ.get('UA_SANITIZED') == '1' and \
        not name.endswith('-pie')

    def expect(trap, native):
        if trap != 'rewrite' and not small_always:
            return native
        return re.sub(rb'malloc 4G: 1\nsum 4G: [0-9a-f]+\n',
                      b'malloc 4G: 0\n', native)
    return expect


def patched_here(uarun, name, prog):
    """prog_trap's sites are patched under the default trap, not left on
    sud: each part's getpid site traps once and comes twice through its
    trampoline (the short ones through a hole; flags' 383 times)."""
    fails = 0
    # flags' site runs 384 times (128 combinations, three trips each).
    for part, want in [('redzone', 2), ('step', 2), ('fault', 2),
                       ('short', 2), ('shortstep', 2), ('flags', 383)]:
        r = subprocess.run([uarun, '--stats', prog, part],
                           capture_output=True, text=True, timeout=120)
        parts = r.stderr.split('sites left on sud')
        s = sites(parts[0])
        trips = [t for _, nr, t in s.get('getpid', [])]
        # Every getpid site patched: none left on sud.
        left = re.findall(r'site 0x[0-9a-f]+ +getpid .*', parts[1]) \
            if len(parts) > 1 else []
        if r.returncode or want not in trips or left:
            fails += 1
            print('FAIL %s %s: getpid sites %r, on sud %r, rc %d, '
                  'stderr %r' % (name, part, s.get('getpid'), left,
                                 r.returncode, r.stderr[-800:]))
        else:
            print('ok   %s %s: patched, getpid trips %r' %
                  (name, part, trips))
    return fails


# prog_hostsig: (mode, the signals the runner sends once it reads
# "ready", one after the other).
HOSTSIG_CASES = [
    ('term', [signal.SIGTERM]),
    ('term', [signal.SIGINT]),
    ('spin', [signal.SIGTERM]),
    ('read', [signal.SIGINT]),
    ('ignore', [signal.SIGHUP, signal.SIGUSR1]),
    ('default', [signal.SIGTERM]),
    ('blocked', [signal.SIGTERM]),
]


def run_signalled(cmd, sigs):
    """Run cmd, send sigs to it from here once it prints "ready"."""
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = p.stdout.readline()
    if first == b'ready\n':
        for s in sigs:
            os.kill(p.pid, s)
    try:
        out, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        err += b'[timed out: killed]'
    return first + out, p.returncode, err


def host_signals(uarun, bks, name, prog):
    """Signals sent to the process from outside reach the program as the
    kernel delivers them: its handler with the sender's siginfo, ignored,
    blocked and pending, or its default action, uarun dying of it."""
    fails = 0
    for how, sigs in HOSTSIG_CASES:
        case = '%s %s %s' % (name, how, '+'.join(s.name for s in sigs))
        want_out, want_rc, _ = run_signalled([prog, how], sigs)
        for b, f, t in [(b, f, t) for t in traps(uarun, [prog, 'nosuch'])
                        for b in bks for f in FRAMES]:
            cmd = [uarun, '--protect=' + b, '--frames=' + f,
                   '--trap=' + t, prog, how]
            out, rc, err = run_signalled(cmd, sigs)
            if out != want_out or rc != want_rc:
                fails += 1
                print('FAIL %s [%s, %s, %s]: native %s %r, uarun %s %r' %
                      (case, b, f, t, end(want_rc), want_out, end(rc), out))
                print('  uarun stderr: %r' % err[-500:])
            else:
                print('ok   %s [%s, %s, %s]: %s' % (case, b, f, t, end(rc)))
    return fails


def sites(stats):
    """The --stats site listing: {name: [(addr, nr, trips)]}."""
    out = {}
    for line in stats.splitlines():
        w = line.split()
        if len(w) == 6 and w[0] == 'site' and w[5] == 'trips':
            out.setdefault(w[2], []).append((int(w[1], 16), int(w[3]),
                                             int(w[4])))
    return out


def signal_at_site_exit(uarun, name, prog, trap):
    """Three raise() calls under --trap=rewrite or patch: the first traps
    through sud and rewrites or patches the kill site, the next two come
    through it, and each handler runs at that syscall's exit (its output
    says the handler ran before raise returned)."""
    if trap not in traps(uarun, [prog, 'raise']):
        return 0
    r = subprocess.run([uarun, '--trap=' + trap, '--stats', prog, 'raise'],
                       capture_output=True, text=True, timeout=120)
    want = ''.join('raise %d: hits=%d sig=10\n' % (i, i + 1)
                   for i in range(3))
    s = sites(r.stderr)
    kill = s.get('tgkill', []) + s.get('tkill', [])
    delivered = [l.split() for l in r.stderr.splitlines()
                 if l.startswith('signals delivered')]
    if r.returncode or r.stdout != want or len(kill) != 1 or \
            kill[0][2] != 2 or delivered != [['signals', 'delivered', '3']]:
        print('FAIL %s raise at a %s site: rc %d stdout %r sites %r '
              'stderr %r' % (name, trap, r.returncode, r.stdout, kill,
                             r.stderr[-600:]))
        return 1
    print('ok   %s raise at a %s site: %#x %d trips' %
          (name, trap, kill[0][0], kill[0][2]))
    return 0


# Functions, pipelines, substitutions, here-documents, traps, background
# jobs and exec: each external command a busybox applet, forked and
# exec'd.
BASH_SCRIPT = r"""
count() { busybox wc -l < "$1"; }
for f in a.txt b.txt; do echo "$f: $(count $f)"; done
busybox sort -u a.txt | busybox head -2
n=$(busybox seq 1 5 | busybox tr '\n' + ; echo 0)
echo "sum: $((n))"
busybox cat <<EOF
here $((2 + 3))
EOF
trap 'echo trapped' USR2
kill -USR2 $$
busybox sleep 0.05 &
wait $!
echo "bg: $?"
(exit 3) || echo "subshell: $?"
out=$(busybox sh -c 'echo inner; exit 2'); echo "$out $?"
exec busybox echo "exec'd"
"""


# A shell forking 1000 commands (UA_STRESS_FORKS: the VMs of
# tools/vm-test make it 100): every child reaped, no descriptor left
# behind in the shell's process (under uarun the monitor's own), all
# counted without a fork.
FORK_STRESS = r"""
set -- /proc/$$/fd/*; before=$#
i=0; while [ $i -lt ${UA_STRESS_FORKS:-1000} ]; do busybox true; i=$((i+1)); done
set -- /proc/$$/fd/*; after=$#
[ "$before" = "$after" ] && echo "descriptors: as many as before"
read c < /proc/$$/task/$$/children; echo "children left: ${c:-none}"
echo "ran $i"
"""


def fork_stress(uarun, cwd):
    """FORK_STRESS natively and once under uarun (--protect=none: the
    mprotect backend's dear switches would make it minutes long)."""
    cmd = [shutil.which('busybox'), 'sh', '-c', FORK_STRESS]
    want, want_rc, _ = run(cmd, b'', cwd, dict(os.environ))
    r = subprocess.run([uarun, '--protect=none'] + cmd, capture_output=True,
                       cwd=cwd, timeout=600)
    if r.stdout != want or r.returncode != want_rc or \
            b'as many as before' not in want:
        print('FAIL busybox 1000 forks: native %r %s, uarun %r %s %r' %
              (want, end(want_rc), r.stdout, end(r.returncode),
               r.stderr[-300:]))
        return 1
    print('ok   busybox 1000 forks: %r' % want)
    return 0


def mode_busybox(uarun):
    bb = shutil.which('busybox')
    if not bb:
        print('busybox not installed (tools/install-deps installs it)')
        return SKIP
    out = subprocess.run(['file', '-L', bb], capture_output=True,
                         text=True).stdout if shutil.which('file') else ''
    if 'dynamically' in out:
        print('busybox is dynamically linked: install busybox-static')
        return SKIP
    bks = backends(uarun)
    text = b'pear\napple\nfig\napple\nbanana\n'
    fails = 0
    with tempfile.TemporaryDirectory() as d:
        for n in ['b.txt', 'a.txt', 'c.dat']:
            with open(os.path.join(d, n), 'wb') as f:
                f.write(text)
        os.mkdir(os.path.join(d, 'sub'))
        cases = [
            ('echo', ['echo', 'hello', 'world'], b''),
            ('cat', ['cat'], text),
            ('cat file', ['cat', 'a.txt', 'b.txt'], b''),
            ('sort', ['sort'], text),
            ('sort -u', ['sort', '-u', 'a.txt'], b''),
            ('sha256sum', ['sha256sum'], text * 1000),
            ('wc', ['wc'], text),
            ('ls', ['ls', '-1'], b''),
            ('seq', ['seq', '1', '3', '20'], b''),
            ('false', ['false'], b''),
            ('true', ['true'], b''),
            ('sh arith', ['sh', '-c', 'echo $((6*7)); exit 3'], b''),
            ('sh for', ['sh', '-c',
                        's=0; for i in 1 2 3 4 5; do s=$((s+i)); '
                        'echo "i=$i s=$s"; done'], b''),
            ('dd zero null', ['dd', 'if=/dev/zero', 'of=/dev/null',
                              'bs=512', 'count=2000'], b''),
            ('cat missing', ['cat', 'no-such-file'], b''),
            # Files changed in place, each case the same every time.
            ('chmod', ['chmod', '640', 'c.dat'], b''),
            ('stat mode', ['stat', '-c', '%a', 'c.dat'], b''),
            ('touch -d', ['touch', '-d', '2001-02-03 04:05:06', 'c.dat'],
             b''),
            ('stat mtime', ['stat', '-c', '%Y', 'c.dat'], b''),
            ('truncate', ['truncate', '-s', '100', 'c.dat'], b''),
            ('stat size', ['stat', '-c', '%s', 'c.dat'], b''),
            ('ln -f', ['ln', '-f', 'c.dat', 'hard'], b''),
            ('stat links', ['stat', '-c', '%h', 'c.dat'], b''),
            ('ln -sf', ['ln', '-sf', 'c.dat', 'soft'], b''),
            ('readlink', ['readlink', 'soft'], b''),
            ('stat -f', ['stat', '-f', '-c', '%T', '.'], b''),
            ('sync', ['sync'], b''),
            ('id -G', ['id', '-G'], b''),
        ]
        # Processes: the shell forks and execs other programs.
        procs = [
            ('sh pipeline', ['sh', '-c',
                             'busybox echo one two | busybox wc -w; '
                             'busybox printf "b\\na\\n" | busybox sort'],
             b''),
            ('sh subshell', ['sh', '-c',
                             'x=$(busybox echo hi); echo "[$x]"; '
                             '(busybox true; exit 4); echo $?'], b''),
            ('sh here-doc', ['sh', '-c',
                             'busybox cat <<EOF\nline 1\nline 2\nEOF'],
             b''),
            ('sh wait', ['sh', '-c', 'busybox sleep 0.1 & wait $!; '
                         'echo waited $?; busybox false & wait $!; '
                         'echo $?'], b''),
            ('sh trap', ['sh', '-c', 'trap "echo caught" USR1; '
                         'kill -USR1 $$; echo after'], b''),
            ('sh exec', ['sh', '-c', 'exec busybox echo replaced; '
                         'echo never'], b''),
            ('xargs', ['sh', '-c', 'busybox echo a b c | '
                       'busybox xargs -n1 busybox echo x'], b''),
            ('find -exec', ['sh', '-c', 'busybox find . -name "*.txt" '
                            '-exec busybox wc -l {} + | busybox sort'],
             b''),
        ]
        if IN_VM:
            print('skip busybox shells forking and execing: in the VM '
                  '(run on the host)')
        else:
            cases += procs
        for name, args, stdin in cases:
            fails += compare(uarun, bks, 'busybox ' + name, [bb] + args,
                             stdin, cwd=d)
        if not IN_VM:
            fails += fork_stress(uarun, d)
        # Debian's bash-static, where installed: its start needs futex.
        bash = shutil.which('bash-static')
        if bash:
            fails += compare(uarun, bks, 'bash-static -c',
                             [bash, '-c', 'echo hi; echo $((6*7)); '
                              'for i in 1 2; do echo $i; done; exit 4'],
                             cwd=d)
            if not IN_VM:
                fails += compare(uarun, bks, 'bash-static script',
                                 [bash, '-c', BASH_SCRIPT], cwd=d)
        else:
            print('bash-static not installed: its case skipped')
    return fails


def mode_dynamic(uarun):
    """Debian's own dynamically linked programs: the loader maps their
    interpreter, which maps their libraries through the table."""
    need = ['ls', 'sort', 'uniq', 'wc', 'cut', 'tr', 'date', 'stat', 'cp',
            'mv', 'rm', 'mkdir', 'ln', 'readlink', 'md5sum', 'sha256sum',
            'od', 'head', 'tail', 'seq', 'env', 'id', 'grep', 'sed',
            'find', 'xargs', 'tar', 'gzip', 'diff', 'bash', 'perl']
    missing = [n for n in need if not shutil.which(n)]
    if missing:
        print('not installed: %s' % ' '.join(missing))
        return SKIP
    bks = backends(uarun)
    text = b'pear\napple\nfig\napple\nbanana\n'
    fails = 0
    with tempfile.TemporaryDirectory() as d:
        for n in ['b.txt', 'a.txt']:
            with open(os.path.join(d, n), 'wb') as f:
                f.write(text)
        os.mkdir(os.path.join(d, 'sub'))
        with open(os.path.join(d, 'sub', 'c.txt'), 'wb') as f:
            f.write(b'apple pie\n')
        cases = [
            ('ls -la', ['ls', '-la', '--time-style=+', 'sub'], b''),
            ('sort', ['sort'], text),
            ('sort | uniq -c', ['bash', '-c', 'sort a.txt | uniq -c'], b''),
            ('wc', ['wc', 'a.txt', 'b.txt'], b''),
            ('cut', ['cut', '-c', '1-3'], text),
            ('tr', ['tr', 'a-z', 'A-Z'], text),
            ('date -d', ['date', '-u', '-d', '@1000000000'], b''),
            ('stat', ['stat', '-c', '%s %F %a', 'a.txt'], b''),
            ('cp -a mv rm', ['bash', '-c', 'cp -a sub sub2 && mv sub2 sub3 '
                             '&& ls sub3 && rm -r sub3 && ls'], b''),
            ('mkdir ln readlink', ['bash', '-c', 'mkdir -p x/y/z && ln -s '
                                   'x/y l && readlink -f l/z | '
                                   'sed "s|.*/x/|x/|"; rm -r x l'], b''),
            ('md5sum sha256sum', ['bash', '-c', 'md5sum a.txt; '
                                  'sha256sum b.txt'], b''),
            ('od', ['od', '-c', 'a.txt'], b''),
            ('head tail seq', ['bash', '-c', 'seq 1 100 | head -20 | '
                               'tail -3'], b''),
            ('env id', ['bash', '-c', 'env -i A=1 B=2 env; id -u'], b''),
            ('grep -r', ['grep', '-r', 'apple', '.'], b''),
            ('sed -i', ['bash', '-c', 'cp a.txt e.txt; chmod 640 e.txt; '
                        'sed -i s/apple/APPLE/ e.txt; cat e.txt; '
                        'stat -c %a e.txt; rm e.txt'], b''),
            ('find -exec', ['bash', '-c', 'find . -name "*.txt" -exec wc -c '
                            '{} + | sort'], b''),
            ('xargs', ['bash', '-c', 'ls *.txt | xargs -n1 head -1'], b''),
            ('tar gzip', ['bash', '-c', 'tar czf t.tgz sub && mkdir u && '
                          'tar xzf t.tgz -C u && cat u/sub/c.txt && '
                          'gzip -c a.txt | gzip -dc | wc -l; rm -r u t.tgz'],
             b''),
            ('diff', ['diff', 'a.txt', 'sub/c.txt'], b''),
            # Process substitution and the /dev links into /proc/self/fd:
            # the guest's descriptors, not the monitor's at those numbers.
            ('bash <() /dev/stdin', ['bash', '-c', 'diff <(sort a.txt) '
                                     '<(sort -r a.txt | sort) && echo same; '
                                     'cat <(echo sub) /dev/stdin; '
                                     'exec 7<a.txt; wc -l < /dev/fd/7; '
                                     '[ -e /dev/fd/7 ] && echo has7'],
             b'from stdin\n'),
            ('bash script', ['bash', '-c', 'f() { echo "f:$1"; }; '
                             'for i in $(seq 3); do f $i; done | sort -r; '
                             'x=$(cat a.txt | wc -l); echo "lines $x"; '
                             'cat <<EOF\nhere $((1+2))\nEOF'], b''),
            ('perl', ['perl', '-e', 'my %h = (b => 2, a => 1); '
                      'for (sort keys %h) { print "$_=$h{$_}\\n" } '
                      '"x123y" =~ /(\\d+)/ and print "$1\\n"'], b''),
            # The load addresses are random natively; the vDSO line is
            # the host's (the engine maps none: doc/uarun.md).
            ('ldd', ['sh', '-c', 'ldd /bin/ls | grep -v vdso | '
                     'sed "s/ (0x[0-9a-f]*)//"'], b''),
        ]
        py = '/usr/bin/python3'
        if os.path.exists(py):
            cases.append(('python3', [py, '-c',
                                      'import json, hashlib; '
                                      'print(json.dumps({"h": hashlib.'
                                      'sha256(b"x").hexdigest()}))'], b''))
            # subprocess waits with epoll; ctypes dlopen()s libc.
            cases.append(('python3 subprocess ctypes', [py, '-c',
                          'import subprocess, ctypes, ctypes.util; '
                          'print(subprocess.run(["echo", "hi"], '
                          'capture_output=True).stdout); '
                          'c = ctypes.CDLL(ctypes.util.find_library("c")); '
                          'print(c.abs(-5))'], b''))
            with open(os.path.join(d, 'sub', 'm.py'), 'w') as f:
                f.write('x = 1\n')
            cases.append(('python3 -m compileall',
                          ['sh', '-c', '%s -m compileall -q sub && '
                           'ls sub/__pycache__ && rm -r sub/__pycache__'
                           % py], b''))
        for name, args, stdin in cases:
            fails += compare(uarun, bks, 'dynamic ' + name, args, stdin,
                             cwd=d)
    return fails + dynamic_patched(uarun) + inherited_signals(uarun)


def inherited_signals(uarun):
    """The first program keeps what uarun's caller ignored and blocked,
    as exec keeps them (nohup): the same status lines, and a SIGHUP
    that does not end it."""
    def parent_sets():
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        signal.signal(signal.SIGUSR2, signal.SIG_IGN)
        signal.pthread_sigmask(signal.SIG_SETMASK, {signal.SIGUSR1})

    cmd = ['sh', '-c', 'grep -E "^Sig(Blk|Ign)" /proc/self/status; '
           'kill -HUP $$; echo survived']
    outs = []
    for pre in [[], [uarun]]:
        r = subprocess.run(pre + cmd, capture_output=True, timeout=60,
                           preexec_fn=parent_sets)
        outs.append((r.returncode, r.stdout))
    if outs[0] != outs[1] or b'survived' not in outs[0][1]:
        print('FAIL inherited signals: native %r, uarun %r' %
              (outs[0], outs[1]))
        return 1
    print('ok   inherited signals: %r' % outs[1][1])
    return 0


def dynamic_patched(uarun):
    """The default trap patches the sites of the interpreter and of the
    libraries it maps (mmap of an ELF file with PROT_EXEC), not only the
    program's: under UA_PATCH_AFTER=1 every site of a bash run is patched
    or says why it is not, and none is outside a known code section.
    The objects are told apart by their addresses in bash's own maps,
    which it reads with its builtins."""
    r = subprocess.run([uarun, '--stats', 'bash', '-c',
                        'while read -r l; do echo "$l" >&2; done '
                        '< /proc/self/maps'],
                       capture_output=True, text=True, timeout=120)
    objs = {}
    for l in r.stderr.splitlines():
        m = re.match(r'([0-9a-f]+)-([0-9a-f]+) ..x. .* (/\S+)$', l)
        if m:
            objs.setdefault(os.path.basename(m.group(3)), []).append(
                (int(m.group(1), 16), int(m.group(2), 16)))
    head, _, left = r.stderr.partition('sites left on sud')
    patched = set()
    for at in re.findall(r'^  site 0x([0-9a-f]+) ', head, re.M):
        for name, ranges in objs.items():
            if any(lo <= int(at, 16) < hi for lo, hi in ranges):
                patched.add(name.split('.so')[0])
    outside = [l for l in left.splitlines() if 'not in a code section' in l]
    want = {'ld-linux-x86-64', 'libc'}
    if r.returncode != 0 or not want <= patched or outside:
        print('FAIL dynamic patched: rc %d, patched in %r, outside %r' %
              (r.returncode, sorted(patched), outside[:3]))
        return 1
    print('ok   dynamic patched: sites patched in %s' % sorted(patched))
    return 0


def mode_refuse(uarun):
    fails = 0
    with tempfile.TemporaryDirectory() as d:
        junk = os.path.join(d, 'junk')
        with open(junk, 'wb') as f:
            f.write(b'echo neither ELF nor a #! script\n')
        trunc = os.path.join(d, 'trunc')
        with open('/bin/true' if os.path.exists('/bin/true')
                  else sys.executable, 'rb') as f:
            head = f.read(40)
        with open(trunc, 'wb') as f:
            f.write(head)
        os.chmod(junk, 0o755)
        os.chmod(trunc, 0o755)
        # A dynamic program whose interpreter is missing: /bin/true with
        # its PT_INTERP path changed in place, same length.
        noint = os.path.join(d, 'noint')
        with open('/bin/true', 'rb') as f:
            img = f.read()
        interp = b'/lib64/ld-linux-x86-64.so.2'
        if interp in img:
            img = img.replace(interp, b'/lib64/ld-missing-x86-64.so')
        with open(noint, 'wb') as f:
            f.write(img)
        os.chmod(noint, 0o755)
        cases = [
            ('non-ELF', junk, 'not an ELF file'),
            ('truncated', trunc, 'truncated'),
            ('missing interpreter', noint, 'its interpreter'),
            ('directory', d, 'is a directory'),
            ('missing', os.path.join(d, 'nope'), 'No such file'),
        ]
        for name, path, reason in cases:
            r = subprocess.run([uarun, path], capture_output=True,
                               text=True, timeout=60)
            if r.returncode < 0 or r.returncode not in (126, 127) or \
                    reason not in r.stderr:
                fails += 1
                print('FAIL refuse %s: rc %d stderr %r' %
                      (name, r.returncode, r.stderr))
            else:
                print('ok   refuse %s: %s' % (name, r.stderr.strip()
                                             .splitlines()[0]))
    for args, why in [([], 'no program'), (['--protect=bogus', 'x'],
                                            'bad option value'),
                      (['--bogus', 'x'], 'unknown option')]:
        r = subprocess.run([uarun] + args, capture_output=True, timeout=60)
        if r.returncode != 2:
            fails += 1
            print('FAIL usage %s: rc %d' % (why, r.returncode))
        else:
            print('ok   usage %s: exit 2' % why)
    r = subprocess.run([uarun, '--help'], capture_output=True, text=True)
    if r.returncode != 0 or 'usage: uarun' not in r.stdout:
        fails += 1
        print('FAIL --help')
    fails += refuse_page0(uarun)
    return fails


def mmap_min_addr():
    with open('/proc/sys/vm/mmap_min_addr') as f:
        return int(f.read())


def refuse_page0(uarun):
    """--trap=rewrite where page 0 cannot be mapped: vm.mmap_min_addr > 0
    and no CAP_SYS_RAWIO (dropped from the bounding and inheritable sets
    when we are root, so the exec'd uarun lacks it), then the same with
    UA_TRAP=rewrite: exit 126 with the reason, never a run under sud."""
    bb = shutil.which('busybox')
    if not bb:
        print('busybox not installed')
        return 0
    if mmap_min_addr() == 0:
        print('skip refuse page 0: vm.mmap_min_addr is 0, page 0 maps '
              'without CAP_SYS_RAWIO')
        return 0
    drop = []
    if os.geteuid() == 0:
        setpriv = shutil.which('setpriv')
        if not setpriv:
            print('skip refuse page 0: setpriv (util-linux) not installed')
            return 0
        drop = [setpriv, '--bounding-set=-sys_rawio',
                '--inh-caps=-sys_rawio']
    fails = 0
    for how, cmd, env in [
            ('--trap=rewrite', drop + [uarun, '--trap=rewrite', bb, 'echo',
                                       'ran'], None),
            ('UA_TRAP=rewrite', drop + [uarun, bb, 'echo', 'ran'],
             dict(os.environ, UA_TRAP='rewrite'))]:
        r = subprocess.run(cmd, capture_output=True, text=True, env=env,
                           timeout=60)
        want = ('uaccess: trap mechanism \'rewrite\' needs page 0 for its '
                'trampoline, which cannot be mapped: Operation not '
                'permitted (vm.mmap_min_addr is %d and mapping below it '
                'needs CAP_SYS_RAWIO)\n' % mmap_min_addr())
        if r.returncode != 126 or r.stdout != '' or \
                not r.stderr.startswith(want):
            fails += 1
            print('FAIL refuse page 0 %s: rc %d stdout %r stderr %r' %
                  (how, r.returncode, r.stdout, r.stderr))
        else:
            print('ok   refuse page 0 %s: %s' % (how, want.strip()))
    return fails


def mode_trace(uarun):
    bb = shutil.which('busybox')
    if not bb:
        print('busybox not installed')
        return SKIP
    r = subprocess.run([uarun, '--trace', '--stats', bb, 'echo', 'hi'],
                       capture_output=True, text=True, timeout=60)
    fails = 0
    if r.stdout != 'hi\n':
        fails += 1
        print('FAIL stdout not clean: %r' % r.stdout)
    if 'write(1, "hi\\n", 3) = 3' not in r.stderr:
        fails += 1
        print('FAIL no decoded write in trace: %r' % r.stderr)
    if 'exit_group(0) = ?' not in r.stderr:
        fails += 1
        print('FAIL no exit_group in trace')
    for word in ['write', 'signals delivered', 'protection switches',
                 'windows', 'fixups']:
        if word not in r.stderr:
            fails += 1
            print('FAIL --stats lacks %r' % word)
    r2 = subprocess.run([uarun, '--trace', bb, 'cat', '/no/such'],
                        capture_output=True, text=True, timeout=60)
    if '= -1 ENOENT (No such file or directory)' not in r2.stderr:
        fails += 1
        print('FAIL errno name not traced: %r' % r2.stderr[-400:])
    if not fails:
        print('ok   trace: %s' % [l for l in r.stderr.splitlines()
                                  if l.startswith('write(')][0])
    return fails + stats_sites(uarun, bb) + stats_patched(uarun, bb) + \
        patch_after(uarun, bb)


def without_unwind(bb, d):
    """A copy of the program whose .eh_frame the loader cannot find: its
    name in the section-name table spelled otherwise, nothing moved."""
    with open(bb, 'rb') as f:
        elf = bytearray(f.read())
    shoff = int.from_bytes(elf[0x28:0x30], 'little')
    shentsize = int.from_bytes(elf[0x3a:0x3c], 'little')
    shstrndx = int.from_bytes(elf[0x3e:0x40], 'little')
    sh = shoff + shstrndx * shentsize
    off = int.from_bytes(elf[sh + 0x18:sh + 0x20], 'little')
    size = int.from_bytes(elf[sh + 0x20:sh + 0x28], 'little')
    at = elf.find(b'.eh_frame\0', off, off + size)
    if at < 0:
        return None
    elf[at + 1] = ord('E')
    path = os.path.join(d, 'busybox')
    with open(path, 'wb') as f:
        f.write(elf)
    os.chmod(path, 0o755)
    return path


def patch_after(uarun, bb):
    with tempfile.TemporaryDirectory() as d:
        return patch_after_in(uarun, bb, without_unwind(bb, d))


def patch_after_in(uarun, bb, bare):
    if not bare:
        print('FAIL patch after: %s has no .eh_frame to hide' % bb)
        return 1
    """--patch-after, UA_PATCH_AFTER and their default, auto: busybox has
    an unwind table (.eh_frame), so under auto a site is patched at its
    second trap (one trapping once is left on sud, saying why); the
    same program stripped of its section headers cannot be scanned near
    a site, and its section is swept once its sites have trapped one time
    per 1024 bytes of it (over a thousand for busybox's .text): an
    echo loop patches nothing then.  dd of 20000 blocks patches its read
    and write either way; a count patches a section after that many
    traps; an explicit auto beats the environment; bad counts are
    refused."""
    auto = dict(os.environ)
    auto.pop('UA_PATCH_AFTER')
    once = 'trapped once: a second trap patches it'
    wait = "its section's traps did not pay for a sweep"
    loop = ['sh', '-c', 'for i in 1 2 3 4 5; do echo $i; done']
    dd = ['dd', 'if=/dev/zero', 'of=/dev/null', 'bs=512', 'count=20000']
    fails = 0
    for how, args, env, patched, why in [
            ('auto, true', [bb, 'true'], auto, False, once),
            ('auto, dd', [bb] + dd, auto, True, once),
            ('auto, a loop', [bb] + loop, auto, True, once),
            ('auto, no unwind table, a loop', [bare] + loop, auto, False,
             wait),
            ('auto, no unwind table, dd', [bare] + dd, auto, True, wait),
            ('--patch-after=auto beats UA_PATCH_AFTER=1',
             ['--patch-after=auto', bb, 'true'], os.environ, False, once),
            ('--patch-after=20', ['--patch-after=20', bb] + loop, auto,
             True, wait),
            ('UA_PATCH_AFTER=20', [bb] + loop,
             dict(auto, UA_PATCH_AFTER='20'), True, wait)]:
        r = subprocess.run([uarun, '--stats'] + args, capture_output=True,
                           text=True, env=env, timeout=120)
        head, _, left = r.stderr.partition('sites left on sud')
        s = sites(head)
        reasons = [l for l in left.splitlines() if l.startswith('  site ')]
        ok = r.returncode == 0 and bool(reasons)
        if patched:
            ok = ok and 'write' in s and (args[1] != 'dd' or 'read' in s)
        elif why == once:
            # What ran more than once (brk, in busybox's start) is
            # patched; the rest trapped once each.
            ok = ok and all(l.endswith(' 1 traps: ' + why) for l in reasons)
        else:
            ok = ok and not s and all(l.endswith(why) for l in reasons)
        if not ok:
            fails += 1
            print('FAIL patch after %s: rc %d, patched %r, on sud %r' %
                  (how, r.returncode, s, reasons[:4]))
        else:
            print('ok   patch after %s: patched %r' % (how, sorted(s)))
    for how, args, env, rc, err in [
            ('--patch-after=0', ['--patch-after=0'], auto, 2,
             "uarun: bad --patch-after count '0'\n"),
            ('--patch-after=x', ['--patch-after=x'], auto, 2,
             "uarun: bad --patch-after count 'x'\n"),
            ('UA_PATCH_AFTER=0', [], dict(auto, UA_PATCH_AFTER='0'), 126,
             "uaccess: UA_PATCH_AFTER='0' is not auto or a count of traps "
             "from 1 to 1000000000\n")]:
        r = subprocess.run([uarun] + args + [bb, 'true'], capture_output=True,
                           text=True, env=env, timeout=60)
        if r.returncode != rc or r.stdout or not r.stderr.startswith(err):
            fails += 1
            print('FAIL patch after %s: rc %d stdout %r stderr %r' %
                  (how, r.returncode, r.stdout, r.stderr[:300]))
        else:
            print('ok   patch after %s refused: %s' % (how, err.strip()))
    return fails


def stats_patched(uarun, bb):
    """--stats under the default trap lists the patched sites as it lists
    rewritten ones (seq's write: trapped once, four calls through its
    trampoline) and each site left on sud with its traps and reason."""
    r = subprocess.run([uarun, '--stats', bb, 'sh', '-c',
                        'for i in 1 2 3 4 5; do echo $i; done'],
                       capture_output=True, text=True, timeout=60)
    head, _, left = r.stderr.partition('sites left on sud')
    s = sites(head)
    count = [l.split()[-1] for l in head.splitlines()
             if l.startswith('patched sites')]
    listed = sum(len(v) for v in s.values())
    left_lines = left.splitlines()
    nleft = left_lines[0].split()[-1] if left_lines else None
    reasons = [l for l in left_lines[1:] if l.startswith('  site ')]
    fails = 0
    if r.stdout != '1\n2\n3\n4\n5\n' or r.returncode:
        fails += 1
        print('FAIL stats patched: rc %d stdout %r' %
              (r.returncode, r.stdout))
    if count != [str(listed)] or not listed:
        fails += 1
        print('FAIL stats patched: count %r, %d listed' % (count, listed))
    if [(nr, trips) for _, nr, trips in s.get('write', [])] != [(1, 4)]:
        fails += 1
        print('FAIL stats patched: write sites %r' % s.get('write'))
    if nleft != str(len(reasons)) or \
            any(' traps: ' not in l for l in reasons):
        fails += 1
        print('FAIL stats patched: sites left on sud %r: %r' %
              (nleft, reasons))
    if not fails:
        print('ok   stats patched: %d sites, write %r, %s left on sud' %
              (listed, s['write'], nleft))
    return fails


def stats_sites(uarun, bb):
    """--stats under --trap=rewrite lists each rewritten site once: its
    address, the number and name of its first trap, the calls through
    it.  busybox seq writes each line with its own write(): one site,
    the first call trapped, the other four through the rewrite."""
    if 'rewrite' not in traps(uarun, [bb, 'true']):
        return 0
    r = subprocess.run([uarun, '--trap=rewrite', '--stats', bb, 'sh', '-c',
                        'for i in 1 2 3 4 5; do echo $i; done'],
                       capture_output=True, text=True, timeout=60)
    s = sites(r.stderr)
    count = [l.split()[-1] for l in r.stderr.splitlines()
             if l.startswith('rewritten sites')]
    listed = sum(len(v) for v in s.values())
    fails = 0
    if r.stdout != '1\n2\n3\n4\n5\n' or r.returncode:
        fails += 1
        print('FAIL stats sites: rc %d stdout %r' % (r.returncode, r.stdout))
    if count != [str(listed)] or not listed:
        fails += 1
        print('FAIL stats sites: count %r, %d listed' % (count, listed))
    if [(nr, trips) for _, nr, trips in s.get('write', [])] != [(1, 4)]:
        fails += 1
        print('FAIL stats sites: write sites %r' % s.get('write'))
    addrs = [a for v in s.values() for a, _, _ in v]
    if len(set(addrs)) != len(addrs):
        fails += 1
        print('FAIL stats sites: a site listed twice')
    r2 = subprocess.run([uarun, '--trap=sud', '--stats', bb, 'true'],
                        capture_output=True, text=True, timeout=60)
    if 'rewritten sites' in r2.stderr or 'patched sites' in r2.stderr:
        fails += 1
        print('FAIL stats sites: listed under sud')
    if not fails:
        print('ok   stats sites: %d sites, write %r' % (listed, s['write']))
    return fails


DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data')
ZSH_SCRIPT = r"""f() { echo "f got $1"; }
f one
x=$(echo sub | tr a-z A-Z)
echo "x=$x"
for i in 1 2 3; do echo $i; done | while read l; do echo "line $l"; done
( echo subshell; exit 3 ); echo "status $?"
cat <<END
here $x
END
trap 'echo trapped' USR1
kill -USR1 $$
sleep 0.01 & wait $!; echo "bg $?"
BB echo external
exec BB echo exec
"""
# e2fsck's idea of now (its test suite's variable): repairs write it.
E2FSCK_ENV = {'E2FSCK_TIME': '4000000000'}


def damaged_image(d):
    """An ext4 image with an entry whose inode was cleared and a block
    bitmap bit flipped: e2fsck -fy has passes 2 and 5 to repair."""
    img = os.path.join(d, 'damaged.img')
    f1 = os.path.join(d, 'f1')
    with open(f1, 'w') as f:
        f.write('hi\n')
    subprocess.run(['truncate', '-s', '8M', img], check=True)
    subprocess.run(['mke2fs', '-q', '-F', '-t', 'ext4', img], check=True,
                   capture_output=True)
    for req in ['write %s f1' % f1, 'mkdir dd', 'write %s dd/f2' % f1,
                'clri f1', 'freeb 20']:
        subprocess.run(['debugfs', '-w', '-R', req, img], check=True,
                       capture_output=True)
    return img


def repair_same(uarun, bks, e2fsck, img):
    """e2fsck -fy on a copy of img natively and under every uarun setup:
    the same output, status and image bytes afterwards."""
    fails = 0
    env = dict(os.environ, **E2FSCK_ENV)
    with tempfile.TemporaryDirectory() as d:
        def fixed(cmd):
            work = os.path.join(d, 'img')
            shutil.copyfile(img, work)
            out, rc, err = run(cmd + [e2fsck, '-fy', 'img'], b'', d, env)
            with open(work, 'rb') as f:
                return out, rc, f.read(), err
        want = fixed([])
        for b, f, t in [(b, f, t) for t in traps(uarun, [e2fsck])
                        for b in bks for f in FRAMES]:
            got = fixed([uarun, '--protect=' + b, '--frames=' + f,
                         '--trap=' + t])
            if got[:3] != want[:3]:
                fails += 1
                print('FAIL e2fsck -fy [%s, %s, %s]: native %s, uarun %s, '
                      'output %s, image %s' %
                      (b, f, t, end(want[1]), end(got[1]),
                       'same' if got[0] == want[0] else 'differs',
                       'same' if got[2] == want[2] else 'differs'))
                print('  uarun stderr: %r' % got[3][-500:])
            else:
                print('ok   e2fsck -fy [%s, %s, %s]: %s, image the same' %
                      (b, f, t, end(got[1])))
    return fails


def mode_statics(uarun):
    """Debian's static programs: zsh-static running a script, e2fsck.static
    checking and repairing ext4 images, gpgv-static verifying a detached
    signature, dar_static creating and listing an archive."""
    progs = {'zsh': shutil.which('zsh-static'),
             'e2fsck': shutil.which('e2fsck.static') or
             (os.path.exists('/sbin/e2fsck.static') and
              '/sbin/e2fsck.static'),
             'gpgv': shutil.which('gpgv-static'),
             'dar': shutil.which('dar_static'),
             'busybox': shutil.which('busybox'),
             'mke2fs': shutil.which('mke2fs') or
             (os.path.exists('/sbin/mke2fs') and '/sbin/mke2fs'),
             'debugfs': shutil.which('debugfs') or
             (os.path.exists('/sbin/debugfs') and '/sbin/debugfs')}
    missing = sorted(k for k, v in progs.items() if not v)
    if missing:
        print('statics: skipped (not installed: %s; tools/install-deps '
              'installs them)' % ', '.join(missing))
        return SKIP
    os.environ['PATH'] += ':/sbin:/usr/sbin'
    bks = backends(uarun)
    fails = 0
    with tempfile.TemporaryDirectory() as d:
        script = os.path.join(d, 's.zsh')
        with open(script, 'w') as f:
            f.write(ZSH_SCRIPT.replace('BB', progs['busybox']))
        fails += compare(uarun, bks, 'zsh-static script',
                         [progs['zsh'], script], cwd=d)
        img = os.path.join(d, 'clean.img')
        subprocess.run(['truncate', '-s', '8M', img], check=True)
        subprocess.run(['mke2fs', '-q', '-F', '-t', 'ext4', img],
                       check=True, capture_output=True)
        fails += compare(uarun, bks, 'e2fsck -fn', [progs['e2fsck'], '-fn',
                                                    'clean.img'], cwd=d)
        fails += repair_same(uarun, bks, progs['e2fsck'], damaged_image(d))
        fails += compare(uarun, bks, 'gpgv detached signature',
                         [progs['gpgv'], '--status-fd', '1', '--keyring',
                          os.path.join(DATA, 'trustedkeys.gpg'),
                          os.path.join(DATA, 'signed.txt.sig'),
                          os.path.join(DATA, 'signed.txt')])
        os.makedirs(os.path.join(d, 'tree', 'sub'))
        for name, text in [('a', 'hello\n'), ('sub/b', 'world\n' * 100)]:
            with open(os.path.join(d, 'tree', name), 'w') as f:
                f.write(text)
        # The archive made under uarun lists as the native one does.
        native = subprocess.run([progs['dar'], '-Q', '-c', 'n', '-R',
                                 'tree'], cwd=d, capture_output=True)
        r = subprocess.run([uarun, progs['dar'], '-Q', '-c', 'u', '-R',
                            'tree'], cwd=d, capture_output=True)
        ln = subprocess.run([progs['dar'], '-Q', '-l', 'n'], cwd=d,
                            capture_output=True)
        lu = subprocess.run([progs['dar'], '-Q', '-l', 'u'], cwd=d,
                            capture_output=True)
        if r.returncode != native.returncode or ln.stdout != lu.stdout:
            fails += 1
            print('FAIL dar_static -c under uarun: rc %d (native %d), '
                  'listing %s' % (r.returncode, native.returncode,
                                  'same' if ln.stdout == lu.stdout
                                  else 'differs'))
        else:
            print('ok   dar_static -c: the archive lists as the native one')
        fails += compare(uarun, bks, 'dar_static -l', [progs['dar'], '-Q',
                                                       '-l', 'n'], cwd=d)
    return fails


GO_SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'go')


def mode_go(uarun):
    """Go's runtime (tests/linux/go): goroutines on several threads,
    channels, timers, asynchronous preemption, signal.Notify for a SIGINT
    the program sends itself and for one sent from here."""
    go = shutil.which('go')
    if not go:
        print('go: skipped (no go toolchain: tools/install-deps installs '
              'golang-go)')
        return SKIP
    bks = backends(uarun)
    fails = 0
    with tempfile.TemporaryDirectory() as d:
        prog = os.path.join(d, 'gorun')
        env = dict(os.environ, CGO_ENABLED='0', GOCACHE=os.path.join(d, 'c'),
                   GOPATH=os.path.join(d, 'p'), GOFLAGS='-mod=mod',
                   GO111MODULE='on', GOTOOLCHAIN='local')
        r = subprocess.run([go, 'build', '-o', prog, '.'], cwd=GO_SRC,
                           env=env, capture_output=True, text=True,
                           timeout=600)
        if r.returncode:
            print('FAIL go build: %s' % r.stderr[-2000:])
            return 1
        fails += compare(uarun, bks, 'go', [prog])
        want_out, want_rc, _ = run_signalled([prog, 'wait'],
                                             [signal.SIGINT])
        for b, t in [(b, t) for t in traps(uarun, [prog]) for b in bks]:
            cmd = [uarun, '--protect=' + b, '--trap=' + t, prog, 'wait']
            out, rc, err = run_signalled(cmd, [signal.SIGINT])
            if out != want_out or rc != want_rc:
                fails += 1
                print('FAIL go SIGINT from outside [%s, %s]: native %s %r, '
                      'uarun %s %r' % (b, t, end(want_rc), want_out,
                                       end(rc), out))
                print('  uarun stderr: %r' % err[-500:])
            else:
                print('ok   go SIGINT from outside [%s, %s]: %s' %
                      (b, t, end(rc)))
    return fails


def main():
    uarun, mode, args = os.path.abspath(sys.argv[1]), sys.argv[2], \
        [os.path.abspath(a) for a in sys.argv[3:]]
    if mode == 'programs':
        missing = [p for p in args if not os.path.exists(p)]
        if missing:
            print('not built (toolchain missing): %s' % missing)
            return SKIP
        ret = mode_programs(uarun, args)
    elif mode == 'busybox':
        ret = mode_busybox(uarun)
    elif mode == 'dynamic':
        ret = mode_dynamic(uarun)
    elif mode == 'refuse':
        ret = mode_refuse(uarun)
    elif mode == 'trace':
        ret = mode_trace(uarun)
    elif mode == 'go':
        ret = mode_go(uarun)
    elif mode == 'statics':
        ret = mode_statics(uarun)
    else:
        print('unknown mode ' + mode)
        return 2
    if ret == SKIP:
        return SKIP
    return 1 if ret else 0


if __name__ == '__main__':
    sys.exit(main())
