//go:build tools

// Package tools pins kustomize so `go build sigs.k8s.io/kustomize/kustomize/v5` resolves from this module.
package tools

import _ "sigs.k8s.io/kustomize/kustomize/v5"
