//go:build tools

// Package tools pins source-controller so `go build github.com/fluxcd/source-controller` resolves from this module.
package tools

import _ "github.com/fluxcd/source-controller"
