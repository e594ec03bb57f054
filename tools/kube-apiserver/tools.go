//go:build tools

// Package tools pins kube-apiserver so `go build k8s.io/kubernetes/cmd/kube-apiserver` resolves from this module.
package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
