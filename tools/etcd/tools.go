//go:build tools

// Package tools pins etcd so `go build go.etcd.io/etcd/server/v3` resolves from this module.
package tools

import _ "go.etcd.io/etcd/server/v3"
