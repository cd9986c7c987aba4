// Package testnet gives tests a loopback address that counts the
// connections made to it, so a fence test can say that nothing was
// fetched: the loader's remote-base, Helm and schema tests share it.
package testnet

import (
	"net"
	"sync/atomic"
	"testing"
)

// Listen opens a listener on 127.0.0.1 that accepts and closes every
// connection, counting them in conns, until the test ends. addr is its
// host:port.
func Listen(t testing.TB) (addr string, conns *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	conns = &atomic.Int32{}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			c.Close()
		}
	}()
	return ln.Addr().String(), conns
}
