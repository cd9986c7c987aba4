variable "priority" {
  type = string
}

resource "azurerm_kubernetes_cluster_node_pool" "apps" {
  name                  = "apps"
  kubernetes_cluster_id = "prod"
  vm_size               = "Standard_D4s_v5"
  node_taints           = ["team=payments:NoSchedule"]
}

resource "azurerm_kubernetes_cluster_node_pool" "web" {
  name                  = "web"
  kubernetes_cluster_id = "prod"
  vm_size               = "Standard_D4s_v5"
}

# Spot or not is a variable without a value: the Spot taint may be there.
resource "azurerm_kubernetes_cluster_node_pool" "batch" {
  name                  = "batch"
  kubernetes_cluster_id = "prod"
  vm_size               = "Standard_D4s_v5"
  priority              = var.priority
}
