//go:build !race && !purego

package scheduler

const slowBuild = false
