this is not Rego: hidden directories are skipped
