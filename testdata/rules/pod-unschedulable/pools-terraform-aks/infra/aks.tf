variable "spot_priority" {
  default = "Spot"
}

resource "azurerm_kubernetes_cluster" "prod" {
  name                = "prod"
  location            = "westeurope"
  resource_group_name = azurerm_resource_group.prod.name
  dns_prefix          = "prod"

  default_node_pool {
    name                         = "system"
    vm_size                      = "Standard_D4s_v5"
    only_critical_addons_enabled = true
  }

  identity {
    type = "SystemAssigned"
  }
}

resource "azurerm_kubernetes_cluster_node_pool" "spot" {
  name                  = "spot"
  kubernetes_cluster_id = azurerm_kubernetes_cluster.prod.id
  vm_size               = "Standard_D8ps_v5"
  priority              = var.spot_priority
  eviction_policy       = "Delete"
  node_labels = {
    "workload" = "batch"
  }
}

resource "azurerm_kubernetes_cluster_node_pool" "apps" {
  name                  = "apps"
  kubernetes_cluster_id = azurerm_kubernetes_cluster.prod.id
  vm_size               = "Standard_D4s_v5"
  node_taints           = ["team=payments:NoSchedule"]
  node_labels = {
    "team" = "payments"
  }
}

# Its priority is another resource's attribute: whether its nodes carry
# the Spot taint is not known. It joins the inventory with what is known;
# a judgement that turns on the Spot taint is withheld.
resource "azurerm_kubernetes_cluster_node_pool" "maybe" {
  name                  = "maybe"
  kubernetes_cluster_id = azurerm_kubernetes_cluster.prod.id
  vm_size               = "Standard_D4s_v5"
  priority              = azurerm_resource_group.prod.tags["priority"]
}
