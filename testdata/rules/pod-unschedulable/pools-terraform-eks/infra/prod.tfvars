# Given with -var-file only: Terraform does not load it by itself.
spot = false
