package loader

import (
	"github.com/taintlint/taintlint/loader/jsonscan"
)

// step is one element of a field path (jsonscan.Step): the loader walks
// node trees along the same paths the JSON toolkit walks JSON.
type step = jsonscan.Step
