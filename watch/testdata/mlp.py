# The seed MLP (Flatten + Linear 784->512->512->10 with ReLU) as graph text.
def forward(self, x: "f32[8, 28, 28]"):
    flat = torch.flatten(x, 1)
    w1: "f32[512, 784]" = self.fc1_weight
    b1: "f32[512]" = self.fc1_bias
    h1 = torch.relu(torch.nn.functional.linear(flat, w1, b1))
    w2: "f32[512, 512]" = self.fc2_weight
    b2: "f32[512]" = self.fc2_bias
    h2 = torch.relu(torch.nn.functional.linear(h1, w2, b2))
    w3: "f32[10, 512]" = self.fc3_weight
    b3: "f32[10]" = self.fc3_bias
    return (torch.nn.functional.linear(h2, w3, b3),)
