package pools

import "github.com/taintlint/taintlint/loader"

func readTerraformJSON(r *TerraformResult, f loader.TerraformFile) {}
