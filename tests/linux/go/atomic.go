// SPDX-License-Identifier: MIT
package main

import "sync/atomic"

func atomicLoad(p *int32) int32 { return atomic.LoadInt32(p) }

func atomicStore(p *int32, v int32) { atomic.StoreInt32(p, v) }
