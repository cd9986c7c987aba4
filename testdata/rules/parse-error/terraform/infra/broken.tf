resource "google_container_node_pool" "half" {
  name = "half"
  node_config {
    machine_type = "e2-standard-4" "oops" # want "parse-error: Terraform"
  }
}
