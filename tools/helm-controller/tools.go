//go:build tools

// Package tools pins helm-controller so `go build github.com/fluxcd/helm-controller` resolves from this module.
package tools

import _ "github.com/fluxcd/helm-controller"
