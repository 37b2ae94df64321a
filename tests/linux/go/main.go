// SPDX-License-Identifier: MIT
//
// Go's runtime under uarun (tests/linux/run_programs.py, mode go): built
// static with Debian's golang-go (CGO_ENABLED=0), run natively and under
// uarun, the same bytes.  Goroutines on several threads exchanging over a
// channel, a busy goroutine that only asynchronous preemption (the
// runtime's SIGURG to a thread) can stop, timers, and SIGINT through
// signal.Notify, sent by the process to itself and, with the argument
// "wait", by another process (the runner) once "ready" is printed.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"sync"
	"syscall"
	"time"
)

func channels() {
	var wg sync.WaitGroup
	ch := make(chan int, 16)
	done := make(chan int)
	go func() {
		sum := 0
		for v := range ch {
			sum += v
		}
		done <- sum
	}()
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for j := 0; j < 1000; j++ {
				ch <- i*1000 + j
			}
		}(i)
	}
	wg.Wait()
	close(ch)
	fmt.Println("channels: sum", <-done)
}

// Two goroutines that never call into the runtime: with GOMAXPROCS 2 the
// timer's goroutine runs only if the scheduler preempts one of them.
func preemption() {
	runtime.GOMAXPROCS(2)
	var stop int32
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := 0
			for atomicLoad(&stop) == 0 {
				x++
			}
		}()
	}
	t := time.NewTimer(30 * time.Millisecond)
	<-t.C
	atomicStore(&stop, 1)
	wg.Wait()
	fmt.Println("preemption: the timer fired while two goroutines spun")
	runtime.GOMAXPROCS(4)
}

func notify(wait bool) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT)
	if wait {
		fmt.Println("ready")
		os.Stdout.Sync()
	} else {
		syscall.Kill(os.Getpid(), syscall.SIGINT)
	}
	select {
	case s := <-sig:
		fmt.Println("signal.Notify:", s)
	case <-time.After(20 * time.Second):
		fmt.Println("signal.Notify: nothing")
	}
}

func main() {
	wait := len(os.Args) > 1 && os.Args[1] == "wait"
	if !wait {
		channels()
		preemption()
	}
	notify(wait)
}
