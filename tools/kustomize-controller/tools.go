//go:build tools

// Package tools pins kustomize-controller so `go build github.com/fluxcd/kustomize-controller` resolves from this module.
package tools

import _ "github.com/fluxcd/kustomize-controller"
