//go:build tools

// Package tools pins kube-apiserver, source-controller and kustomize-controller so `go build` of each resolves from this module.
package tools

import (
	_ "github.com/fluxcd/kustomize-controller"
	_ "github.com/fluxcd/source-controller"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
)
