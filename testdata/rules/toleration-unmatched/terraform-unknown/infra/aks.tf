variable "batch_taints" {
  type = list(string)
}

variable "priority" {
  type = string
}

resource "azurerm_kubernetes_cluster_node_pool" "apps" {
  name                  = "apps"
  kubernetes_cluster_id = "prod"
  vm_size               = "Standard_D4s_v5"
  node_taints           = ["team=payments:NoSchedule"]
}

# Its taints are a variable without a value: any taint may be there.
resource "azurerm_kubernetes_cluster_node_pool" "batch" {
  name                  = "batch"
  kubernetes_cluster_id = "prod"
  vm_size               = "Standard_D4s_v5"
  node_taints           = var.batch_taints
}
