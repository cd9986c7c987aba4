spot = true
