package kernels

import (
	"math"
	"testing"
)

// glibcSinCosf holds (input, sinf, cosf) float bits printed by glibc 2.36's
// sinf/cosf on x86-64 with FMA (Debian 12; the libm llama.cpp links
// against). Inputs are RoPE angles of several bases and head sizes,
// random floats, and edge cases, chosen where glibc is not correctly
// rounded: float32(math.Sin(float64(x))) misses most of them by 1 ulp.
// The "fma" rows come out wrong when the polynomial's multiply-adds are
// rounded separately.
var glibcSinCosf = [][3]uint32{
	// fma
	{0x418a3adb, 0xbf800000, 0xb7b4f770}, // 17.278738
	{0x42cf5854, 0x382ee64e, 0xbf800000}, // 103.672516
	// rope small
	{0x3eacba15, 0x3ea9781a, 0x3f7191ea}, // 0.3373572
	{0x3ebf3359, 0x3ebac996, 0x3f6e5b27}, // 0.37343863
	{0x3da1e899, 0x3da1bd70, 0x3f7f334f}, // 0.079056926
	{0x3e04c3da, 0x3e0464b6, 0x3f7dd9f1}, // 0.12965336
	{0x3e55b825, 0x3e542bcd, 0x3f7a71cd}, // 0.20871027
	{0x3e2ed62c, 0x3e2dfd07, 0x3f7c4713}, // 0.17073888
	{0x3eb33443, 0x3eaf914d, 0x3f707a8c}, // 0.3500081
	{0x3ec6a2cb, 0x3ec1b0bd, 0x3f6cf986}, // 0.38796076
	{0x3e86c517, 0x3e853810, 0x3f772eb7}, // 0.26322243
	{0x3e8cd730, 0x3e8b1233, 0x3f766016}, // 0.27507925
	{0x3dfffffb, 0x3dff5573, 0x3f7e00ab}, // 0.12499996
	{0x3e083124, 0x3e07ca72, 0x3f7dbd39}, // 0.13299996
	{0x3e408a05, 0x3e3f681a, 0x3f7b7cee}, // 0.1880265
	{0x3e8fdb0c, 0x3e8df86b, 0x3f75f62b}, // 0.28096807
	{0x3df8cbfa, 0x3df82f6e, 0x3f7e1d01}, // 0.121482804
	{0x3e788691, 0x3e7617ce, 0x3f787f4d}, // 0.24270083
	{0x3e87deaa, 0x3e8647dc, 0x3f7709ef}, // 0.26537067
	{0x3efef852, 0x3ef48fbc, 0x3f60e857}, // 0.49798828
	{0x3f348732, 0x3f25eeed, 0x3f42f0fe}, // 0.7051879
	{0x3e9f1570, 0x3e9c8951, 0x3f73bdea}, // 0.31071043
	{0x3e76c8b2, 0x3e7466e9, 0x3f7899ff}, // 0.24099997
	{0x3eac0e64, 0x3ea8d60d, 0x3f71ae46}, // 0.3360473
	{0x3ef3190c, 0x3eea1101, 0x3f63aeab}, // 0.47480047
	{0x3ebe7da8, 0x3eba205f, 0x3f6e7c3c}, // 0.37205243
	{0x3e26fe29, 0x3e2640ed, 0x3f7c9a79}, // 0.16307892
	{0x3d562505, 0x3d560c0d, 0x3f7fa674}, // 0.0522814
	{0x3e6a34f9, 0x3e682b99, 0x3f79554f}, // 0.2287177
	{0x3e6d474b, 0x3e6b292c, 0x3f792873}, // 0.23171727
	{0x3dd27b2c, 0x3dd21c5e, 0x3f7ea631}, // 0.102773994
	{0x3e1262d0, 0x3e11e34e, 0x3f7d637d}, // 0.14295506
	{0x3de49d69, 0x3de423f1, 0x3f7e681b}, // 0.11162836
	{0x3db98566, 0x3db94479, 0x3f7ef34b}, // 0.09058647
	{0x3f057ae9, 0x3eff0704, 0x3f5dfb89}, // 0.5214067
	{0x3f335d44, 0x3f250b9e, 0x3f43b196}, // 0.7006419
	{0x3f352f6e, 0x3f266ee5, 0x3f4283c8}, // 0.70775497
	{0x3e2ee2cc, 0x3e2e0978, 0x3f7c4689}, // 0.17078704
	{0x3f3ebecf, 0x3f2d9455, 0x3f3c2a52}, // 0.745099
	{0x3e3dffe3, 0x3e3ce947, 0x3f7b9b1d}, // 0.18554644
	{0x3e826d5a, 0x3e810567, 0x3f77bd12}, // 0.25474054
	{0x3e4c3fe1, 0x3e4ae5db, 0x3f7aeca2}, // 0.19946243
	// rope mid
	{0x41111046, 0x3eb38d4b, 0xbf6fbdfb}, // 9.066473
	{0x40b25f2f, 0xbf26b027, 0x3f424bdf}, // 5.574119
	{0x40ceb84e, 0x3e341d4b, 0x3f7c023f}, // 6.459998
	{0x3ffd2617, 0x3f6b1862, 0xbecaa511}, // 1.9777249
	{0x41985cec, 0x3e473c99, 0x3f7b1b8e}, // 19.045372
	{0x42c31f59, 0xbe2f1cfa, 0xbf7c3a9f}, // 97.561226
	{0x416fd707, 0x3f286926, 0xbf40ce1e}, // 14.989997
	{0x3fa40a74, 0x3f755def, 0x3e920746}, // 1.281569
	{0x41ccef7f, 0x3eee561a, 0x3f62927a}, // 25.616941
	{0x400947ad, 0x3f56f1ae, 0xbf0b0cef}, // 2.1449997
	{0x3fe5e330, 0x3f798931, 0xbe64a8f2}, // 1.7959957
	{0x40c318fd, 0xbe3dc14e, 0x3f7b90f4}, // 6.0968003
	{0x42edab0a, 0xbf0508d7, 0x3f5ab7f4}, // 118.83406
	{0x4012611d, 0x3f411268, 0xbf281ad8}, // 2.2871773
	{0x3f855f46, 0x3f5d07c5, 0x3f01283e}, // 1.04197
	{0x4027f9eb, 0x3efd0d6c, 0xbf5e8c01}, // 2.6246288
	{0x410b6fcf, 0x3f26dda2, 0xbf4224d1}, // 8.714797
	{0x41828ea6, 0xbf130221, 0xbf5194f4}, // 16.319653
	{0x414f0a65, 0x3ebae578, 0x3f6e55b0}, // 12.940038
	{0x419f339f, 0x3f5e249f, 0x3efe77c0}, // 19.900206
	{0x4137a451, 0xbf62d42e, 0x3eed5b99}, // 11.477616
	{0x4033f382, 0x3ea5d701, 0xbf7232e8}, // 2.8117375
	{0x4178936e, 0x3e2f3af4, 0xbf7c3952}, // 15.535994
	{0x4023c4ea, 0x3f0cdf1e, 0xbf55c148}, // 2.5588937
	{0x42c29f11, 0x3da100a2, 0xbf7f352c}, // 97.31068
	{0x423d62ff, 0xbe62401d, 0xbf79ac52}, // 47.346676
	{0x42bffcf9, 0x3f7c1132, 0xbe32cd62}, // 95.99409
	{0x42a1f969, 0xbf23cc0a, 0x3f44bd61}, // 80.98713
	{0x4289d4b2, 0xbe4b0dca, 0x3f7aea9d}, // 68.91542
	{0x429b07c7, 0x3f5ac1d4, 0xbf04f899}, // 77.51519
	{0x421141e9, 0xbf7b9505, 0x3e3d6afa}, // 36.314365
	{0x414bdcbc, 0x3e324e78, 0x3f7c16d1}, // 12.74139
	{0x42cfa565, 0xbe19825e, 0xbf7d1b68}, // 103.82304
	{0x41a1a53e, 0x3f7a1fc5, 0x3e5a229d}, // 20.205685
	{0x42b859ed, 0xbf607ee0, 0xbef61225}, // 92.17564
	{0x429551ea, 0xbf2c48a9, 0x3f3d5a2f}, // 74.65999
	{0x4231bbcb, 0x3edf34ef, 0x3f666478}, // 44.43339
	{0x419f38ba, 0x3f5e75a5, 0x3efd5c03}, // 19.902699
	{0x42484ee4, 0xbe3fd2cc, 0x3f7b77d9}, // 50.07704
	{0x421fe6f5, 0x3f42ddf6, 0xbf260546}, // 39.975544
	{0x4297bfa3, 0x3eeaa493, 0x3f6388ae}, // 75.87429
	{0x41988f2d, 0x3e5fd22e, 0x3f79cf59}, // 19.06991
	{0x42a9d78e, 0xbdc863e7, 0xbf7ec586}, // 84.921005
	{0x42b289ac, 0x3f76f67b, 0x3e86d6b6}, // 89.26889
	{0x42bd6acf, 0x3ee3aebc, 0x3f654b80}, // 94.70861
	{0x405b89c6, 0xbe91c3f0, 0xbf7567f1}, // 3.430284
	{0x403aa5fe, 0x3e64abfd, 0xbf798904}, // 2.9163814
	{0x41398bed, 0xbf5320ee, 0x3f10c732}, // 11.596662
	{0x3f4c7fa0, 0x3f376ed9, 0x3f3292b3}, // 0.7988224
	{0x413ffc8d, 0xbf098b66, 0x3f57e92e}, // 11.999158
	{0x4057f077, 0xbe6be670, 0xbf791d44}, // 3.3740518
	{0x42a083ca, 0xbf7d3f3a, 0x3e15c585}, // 80.2574
	{0x4254bcd0, 0x3e622704, 0xbf79adbe}, // 53.184387
	{0x41459322, 0xbe5d6ae7, 0x3f79f19b}, // 12.348421
	{0x40f89aef, 0x3f7f1303, 0x3dae02cd}, // 7.768913
	{0x41a4bd6e, 0x3f7c3761, 0xbe2f67a4}, // 20.592495
	{0x40e42d08, 0x3f3fdf75, 0x3f2978dd}, // 7.130497
	{0x40b7cadf, 0xbf038be8, 0x3f5b9de3}, // 5.7435145
	{0x425703c6, 0xbeadeea3, 0xbf70c68f}, // 53.753685
	{0x42ed4447, 0xbf2df7d6, 0x3f3bce57}, // 118.633354
	{0x405dd8c3, 0xbea35eef, 0xbf729e35}, // 3.466355
	{0x410aec19, 0x3f2d0574, 0xbf3cadbc}, // 8.682641
	{0x42d38d8d, 0xbf5c7988, 0x3f021a77}, // 105.77647
	{0x40e58146, 0x3f46be81, 0x3f215bef}, // 7.1720304
	{0x40d0c2df, 0x3e7401c4, 0x3f78a035}, // 6.523788
	{0x3f86d2f3, 0x3f5e7b29, 0x3efd48a4}, // 1.0533127
	{0x3fa2aca5, 0x3f7492d1, 0x3e97423c}, // 1.2708937
	{0x4120da23, 0xbf16818d, 0xbf4f1597}, // 10.053256
	{0x401e76da, 0x3f1e15ef, 0xbf495b92}, // 2.4760041
	{0x40e16213, 0x3f305ee6, 0x3f398d33}, // 7.043222
	{0x3fa78c5f, 0x3f77467b, 0x3e84872e}, // 1.3089713
	{0x3f823969, 0x3f59c998, 0x3f068dab}, // 1.017377
	{0x424e5a0b, 0x3f78255f, 0x3e7bb352}, // 51.587933
	{0x40c4adc0, 0xbe0bd327, 0x3f7d9a28}, // 6.1462097
	{0x3f7af576, 0x3f54a6b7, 0x3f0e8844}, // 0.98030794
	{0x4297c49f, 0x3eef0fd3, 0x3f62618a}, // 75.884026
	{0x426a0598, 0x3f6d2a0e, 0xbec0c291}, // 58.505463
	{0x41995ca6, 0x3ea163c9, 0x3f72f302}, // 19.170238
	{0x41b7da6b, 0xbf5617cd, 0xbf0c5b7e}, // 22.98165
	{0x3f7f514e, 0x3f570c0f, 0x3f0ae420}, // 0.99733436
	// rope large
	{0x430cddd2, 0x3ef7cab1, 0xbf60059b}, // 140.86649
	{0x44f39d2d, 0x3f66e728, 0x3edd162e}, // 1948.9117
	{0x4603eb25, 0xbf7868d3, 0xbe7781cf}, // 8442.786
	{0x47017200, 0x3eecbe84, 0x3f62fd35}, // 33138
	{0x43e2451d, 0x3e19a339, 0x3f7d1a29}, // 452.53995
	{0x44a7f00e, 0xbf642495, 0x3ee843f8}, // 1343.5017
	{0x43219235, 0xbf79c783, 0xbe605dec}, // 161.57112
	{0x44157f3b, 0x3f626d16, 0x3eeee412}, // 597.988
	{0x4746b295, 0xbf5ebdf6, 0xbefc5d5b}, // 50866.582
	{0x46f9744d, 0xbf570c46, 0x3f0ae3ca}, // 31930.15
	{0x445060f1, 0xbf56651f, 0xbf0be546}, // 833.5147
	{0x463cc931, 0xbe87545e, 0x3f76e54b}, // 12082.298
	{0x4757d091, 0x3efd8379, 0x3f5e6a67}, // 55248.566
	{0x431fb33b, 0x3efee4df, 0xbf5e0556}, // 159.70012
	{0x44b14734, 0xbf7ab13e, 0xbe4f6f7e}, // 1418.2251
	{0x44cf43fd, 0xbf181e5e, 0x3f4de717}, // 1658.1246
	{0x438914db, 0xbf3f5fbb, 0xbf2a090c}, // 274.16293
	{0x461ebb45, 0xbf635c73, 0x3eeb4fd6}, // 10158.817
	{0x468a9d7d, 0xbf5356e7, 0x3f10785d}, // 17742.744
	{0x45c95a17, 0x3e14442c, 0xbf7d4d65}, // 6443.261
	{0x437cca27, 0x3f7e7e43, 0x3ddde04c}, // 252.78966
	{0x4696678e, 0x3dc77dc5, 0x3f7ec859}, // 19251.777
	{0x43964534, 0xbf5e5886, 0x3efdc22f}, // 300.54065
	{0x458d48eb, 0xbeb5c2fe, 0xbf6f5351}, // 4521.1147
	{0x45b55a6c, 0xbf343d7d, 0xbf35cb8e}, // 5803.3027
	{0x4385b5a5, 0xbebfae0b, 0xbf6d620f}, // 267.4191
	{0x44472d55, 0xbf737002, 0x3e9e6b56}, // 796.7083
	{0x4582e786, 0xbf6e5cb3, 0xbebac1af}, // 4188.9404
	{0x458cc028, 0xbf5ab7e1, 0x3f0508f6}, // 4504.0195
	{0x4454e905, 0xbe883b40, 0xbf76c58b}, // 851.6409
	{0x465bfe36, 0xbf600346, 0x3ef7d31f}, // 14079.553
	{0x4775dfed, 0xbf5ac1d3, 0x3f04f89b}, // 62943.926
	{0x4638acce, 0x3f015486, 0x3f5ceddf}, // 11819.201
	{0x458def6c, 0xbf3a5722, 0x3f2f897f}, // 4541.9277
	{0x43169485, 0xbe5bc2d7, 0x3f7a08fe}, // 150.58015
	{0x46388fa1, 0xbeecf416, 0x3f62ef3b}, // 11811.907
	{0x465ecab5, 0x3f5919e2, 0xbf07a876}, // 14258.677
	{0x436414a6, 0x3f736385, 0xbe9eb804}, // 228.08066
	{0x441acec4, 0xbea946fd, 0xbf719a86}, // 619.2307
	{0x45c0c6b2, 0xbf73067a, 0x3ea0ee5d}, // 6168.837
	{0x45654e07, 0xbef70aaa, 0x3f603a9a}, // 3668.8767
	{0x43a440ac, 0x3f7a705b, 0xbe54471a}, // 328.50525
	{0x47696500, 0x3f5055db, 0xbf14c4ff}, // 59749
	{0x4409f75c, 0xbf5ebc05, 0x3efc6438}, // 551.865
	{0x4552579d, 0xbf3ced68, 0xbf2cbfea}, // 3365.4758
	{0x4522f63f, 0xbe064a4b, 0x3f7dc9ff}, // 2607.3904
	{0x45d2a15c, 0xbf7e3f0f, 0xbdef4e74}, // 6740.17
	{0x43430000, 0x3e60b8ba, 0x3f79c269}, // 195
	{0x4504e000, 0x3f41b60f, 0xbf275e29}, // 2126
	{0x44263d81, 0xbf5ee6d9, 0x3efbccce}, // 664.961
	{0x45eafdda, 0xbf723bf3, 0x3ea5a227}, // 7519.7314
	{0x45e12ba3, 0xbf7a4701, 0x3e574ddf}, // 7205.4546
	{0x45dc36f1, 0xbe8b34d4, 0xbf765b33}, // 7046.8677
	{0x433b0b23, 0xbf7e328b, 0x3df29bbb}, // 187.0435
	{0x4716bedd, 0xbee3b3f6, 0x3f654a34}, // 38590.863
	{0x4312724f, 0x3f6f5df7, 0xbeb58add}, // 146.44652
	{0x434f1e71, 0xbe65a977, 0x3f797a77}, // 207.11891
	{0x4474d3d1, 0xbf4337c9, 0x3f259b9e}, // 979.30963
	{0x448817ce, 0x3f7bc516, 0xbe396216}, // 1088.7439
	{0x4444e30e, 0x3f564e8f, 0xbf0c07d4}, // 787.5477
	{0x44c5fbee, 0x3ef9fe6a, 0x3f5f68d0}, // 1583.8728
	{0x443c731c, 0xbe3b0153, 0x3f7bb1e4}, // 753.7986
	{0x46cdadb0, 0x3e95fdd1, 0x3f74c4bf}, // 26326.844
	{0x4483c940, 0xbf75b169, 0x3e8fd18f}, // 1054.2891
	{0x443a110a, 0x3e9301fb, 0xbf75387e}, // 744.26624
	{0x43fbf6b3, 0x3f74b217, 0x3e967767}, // 503.92734
	{0x44c86949, 0x3f61873c, 0x3ef243ac}, // 1603.2902
	{0x45850112, 0x3f299ec4, 0xbf3fbdf4}, // 4256.134
	{0x431aab66, 0xbf2b0073, 0xbf3e82ca}, // 154.66953
	{0x430a245b, 0xbdb41ed5, 0x3f7f020b}, // 138.14201
	{0x447a0753, 0x3f62bc8d, 0x3eedb5d8}, // 1000.11444
	{0x44961b9d, 0x3f330a2d, 0x3f36fa3d}, // 1200.8629
	{0x4323d141, 0x3ee0cfc2, 0x3f660086}, // 163.8174
	{0x460ebe0b, 0xbe741922, 0x3f789ec6}, // 9135.511
	{0x436e8c43, 0xbe589c67, 0x3f7a34f6}, // 238.5479
	{0x451a5000, 0xbe934d94, 0x3f752d27}, // 2469
	{0x43644d96, 0x3f5be369, 0xbf031790}, // 228.30307
	{0x45a421d5, 0xbefbb17b, 0x3f5eee8f}, // 5252.229
	{0x45225381, 0x3f4500fd, 0xbf237ab4}, // 2597.219
	{0x4568b21a, 0xbeacb34e, 0xbf70ff47}, // 3723.1313
	// random
	{0xc65a778a, 0xbf7973bc, 0xbe661e51}, // -13981.885
	{0xc746e9bb, 0xbead1605, 0xbf70ed92}, // -50921.73
	{0xc79050b5, 0x3f3f818e, 0x3f29e2f2}, // -73889.414
	{0xc731d40f, 0xbf307740, 0xbf39760a}, // -45524.06
	{0xc710570a, 0x3ebaed06, 0x3f6e5435}, // -36951.04
	{0x47a5c9b2, 0xbf24ab24, 0xbf4402cc}, // 84883.39
	{0x47564916, 0xbf7c7d19, 0x3e2904f9}, // 54857.086
	{0xc704ba1c, 0x3f7a28a8, 0x3e597f53}, // -33978.11
	{0x478aaf44, 0x3e80b355, 0x3f77c7bd}, // 71006.53
	{0xc6b012e7, 0x3ea819a1, 0x3f71cf1a}, // -22537.451
	{0x47a48873, 0x3f49e349, 0xbf1d6878}, // 84240.9
	{0xc79f785f, 0x3f7302cd, 0x3ea1048c}, // -81648.74
	{0xc7bedfcf, 0x3f5db000, 0x3f0006a6}, // -97727.62
	{0xc67c88e5, 0xbf748c8c, 0xbe976ac7}, // -16162.224
	{0xc6f92c9e, 0xbf4200e1, 0x3f270769}, // -31894.309
	{0xc78210c6, 0x3f6f4819, 0xbeb5fe09}, // -66593.55
	{0xc785ac6a, 0x3f717642, 0xbeaa1577}, // -68440.83
	{0x478ab8a6, 0x3e2d6829, 0x3f7c4d7b}, // 71025.3
	{0x469fb206, 0x3f78b751, 0xbe7287c1}, // 20441.012
	{0xc72095cc, 0x3f625527, 0x3eef3eb6}, // -41109.797
	{0xc656ca1a, 0x3f6244f7, 0x3eef7bef}, // -13746.525
	{0xc6fb5122, 0x3f795995, 0x3e67e218}, // -32168.566
	{0xc63ae7b9, 0x3f73461a, 0x3e9f6c09}, // -11961.931
	{0xc6fcf7ad, 0xbf0775e5, 0xbf593973}, // -32379.838
	{0x4684ed17, 0xbea17d95, 0x3f72eeb8}, // 17014.545
	{0xc784c22e, 0xbf4220d3, 0x3f26e247}, // -67972.36
	{0x46ef3817, 0x3f5f281d, 0xbefae527}, // 30620.045
	{0x46603601, 0xbf76462c, 0x3e8bc954}, // 14349.501
	{0x479c7907, 0xbe97840e, 0xbf7488a2}, // 80114.055
	{0x471d8e0d, 0x3f418e44, 0xbf278c2d}, // 40334.05
	{0xc766beaa, 0xbf256dc8, 0xbf435ea2}, // -59070.664
	{0xc6ccc525, 0x3e85fa33, 0xbf77147a}, // -26210.572
	{0xc78287fa, 0x3f40c46d, 0xbf28743e}, // -66831.95
	{0xc6f8c0f3, 0x3ed6dd06, 0xbf685df5}, // -31840.475
	{0xc7adc8d0, 0xbf7dbdd1, 0x3e07b89b}, // -88977.625
	{0xc70102ca, 0xbf330965, 0xbf36fb01}, // -33026.79
	{0x47950164, 0x3ead46fb, 0x3f70e4c6}, // 76290.78
	{0xc778a62b, 0x3f3478cb, 0x3f3590af}, // -63654.168
	{0x47b2f81b, 0xbf7b41e5, 0xbe44313f}, // 91632.21
	{0xc6560e7f, 0xbf4243b6, 0xbf26b9aa}, // -13699.624
	// negative large
	{0xc32c965e, 0xbe4ba98e, 0xbf7ae2b9}, // -172.58737
	{0xc3ccce39, 0xbf6efa40, 0x3eb7956a}, // -409.6111
	{0xc384db46, 0xbf7822fc, 0xbe7bd901}, // -265.71307
	{0xc421baa2, 0x3e7f465d, 0x3f77eaed}, // -646.91614
	{0xc496b99c, 0x3f0a6c40, 0x3f57594c}, // -1205.8003
	{0xc4d8777f, 0x3f282aa6, 0xbf4104a4}, // -1731.7343
	{0xc544d0d5, 0xbf6c52bf, 0x3ec4d936}, // -3149.052
	{0xc5f0a24a, 0x3e75ee97, 0xbf7881da}, // -7700.286
	{0xc5b07505, 0x3f6d39f6, 0xbec07438}, // -5646.6274
	{0xc63f130e, 0xbf7e549c, 0xbde982f0}, // -12228.764
	{0xc6b09bb4, 0x3f5df474, 0x3eff1faa}, // -22605.852
	{0xc6e1c8c8, 0x3f4546fc, 0xbf232635}, // -28900.39
	{0xc7311ac4, 0x3f24d4f9, 0x3f43dfa0}, // -45338.766
	{0xc7da3277, 0xbf72ab6e, 0xbea3104e}, // -111716.93
	{0xc7c5f5b1, 0xbf7807d3, 0x3e7d83a5}, // -101355.38
	{0xc8041e51, 0x3e8db208, 0x3f760050}, // -135289.27
	{0xc8ce8ca2, 0x3f2f1d3f, 0xbf3abce0}, // -423013.06
	{0xc8da541d, 0xbe9ac03a, 0x3f7406d7}, // -447136.9
	{0xc960f45a, 0x3e531fce, 0xbf7a7ff4}, // -921413.6
	{0xc951cc75, 0xbe6d6f58, 0xbf7905ef}, // -859335.3
	// huge
	{0x60e94e68, 0xbf45019a, 0xbf2379f6}, // 1.3449191e+20
	{0xe0e352fc, 0xbea96ea7, 0x3f719392}, // -1.31043455e+20
	{0x60c5c01d, 0xbf788d1e, 0x3e753822}, // 1.1399537e+20
	{0xe0b9b08f, 0x3f558082, 0x3f0d4136}, // -1.0704281e+20
	{0x60fe89cc, 0x3e2e3505, 0xbf7c44a9}, // 1.4673132e+20
	{0xe0e27e9f, 0x3e5c207a, 0xbf7a03d8}, // -1.30565255e+20
	{0x60b2489b, 0xbf7eb3d3, 0xbdcdf037}, // 1.0277351e+20
	{0xe0d14932, 0xbf7aff23, 0x3e497660}, // -1.2064512e+20
	{0x60d79e87, 0x3e9865ae, 0xbf746592}, // 1.2429603e+20
	{0xe0dc58d6, 0x3e6ff628, 0xbf78df2c}, // -1.2702141e+20
	// special
	{0x00000000, 0x00000000, 0x3f800000}, // 0
	{0x80000000, 0x80000000, 0x3f800000}, // -0
	{0x00000001, 0x00000001, 0x3f800000}, // 1e-45
	{0x80000001, 0x80000001, 0x3f800000}, // -1e-45
	{0x7f800000, 0xffc00000, 0xffc00000}, // +Inf
	{0xff800000, 0xffc00000, 0xffc00000}, // -Inf
	{0x7fc00000, 0x7fc00000, 0x7fc00000}, // NaN
	{0xffc00000, 0xffc00000, 0xffc00000}, // NaN
	{0x7fa00000, 0x7fe00000, 0x7fe00000}, // NaN
	{0x7f800001, 0x7fc00001, 0x7fc00001}, // NaN
	{0xffffffff, 0xffffffff, 0xffffffff}, // NaN
	{0x7f7fffff, 0xbf0599b3, 0x3f5a5f96}, // 3.4028235e+38
	{0x00800000, 0x00800000, 0x3f800000}, // 1.1754944e-38
	{0x3f490fda, 0x3f3504f3, 0x3f3504f4}, // 0.7853981
	{0xbf490fda, 0xbf3504f3, 0x3f3504f4}, // -0.7853981
	{0x3f490fdb, 0x3f3504f3, 0x3f3504f3}, // 0.7853982
	{0xbf490fdb, 0xbf3504f3, 0x3f3504f3}, // -0.7853982
	{0x3f490fdc, 0x3f3504f4, 0x3f3504f2}, // 0.78539824
	{0x397fffff, 0x397fffff, 0x3f800000}, // 0.00024414061
	{0xb97fffff, 0xb97fffff, 0x3f800000}, // -0.00024414061
	{0x39800000, 0x39800000, 0x3f800000}, // 0.00024414063
	{0xb9800000, 0xb9800000, 0x3f800000}, // -0.00024414063
	{0x39800001, 0x39800001, 0x3f7fffff}, // 0.00024414065
	{0x007fffff, 0x007fffff, 0x3f800000}, // 1.1754942e-38
	{0x807fffff, 0x807fffff, 0x3f800000}, // -1.1754942e-38
	{0x80800000, 0x80800000, 0x3f800000}, // -1.1754944e-38
	{0x00800001, 0x00800001, 0x3f800000}, // 1.1754945e-38
	{0x42efffff, 0x3f14a287, 0x3f506e74}, // 119.99999
	{0xc2efffff, 0xbf14a287, 0x3f506e74}, // -119.99999
	{0x42f00000, 0x3f14a2ef, 0x3f506e2a}, // 120
	{0xc2f00000, 0xbf14a2ef, 0x3f506e2a}, // -120
	{0x42f00001, 0x3f14a357, 0x3f506de0}, // 120.00001
}

func TestSinCosfMatchesGlibc(t *testing.T) {
	crMiss := 0
	for _, v := range glibcSinCosf {
		x := math.Float32frombits(v[0])
		s, c := sinf32(x), cosf32(x)
		ss, cc := sincosf32(x)
		for _, got := range [][2]float32{{s, c}, {ss, cc}} {
			if math.Float32bits(got[0]) != v[1] || math.Float32bits(got[1]) != v[2] {
				t.Errorf("x=%08x (%g): sin, cos = %08x, %08x; glibc %08x, %08x",
					v[0], x, math.Float32bits(got[0]), math.Float32bits(got[1]), v[1], v[2])
			}
		}
		if !math.IsNaN(float64(x)) &&
			(math.Float32bits(float32(math.Sin(float64(x)))) != v[1] || math.Float32bits(float32(math.Cos(float64(x)))) != v[2]) {
			crMiss++
		}
	}
	// Guards the data: the vectors must be able to tell glibc from a
	// correctly rounded sine/cosine.
	if crMiss < 250 {
		t.Errorf("only %d of %d vectors differ from correctly rounded results", crMiss, len(glibcSinCosf))
	}
}

// TestRoPEAnglesMatchLlamaCpp checks NewRoPE's cached cos/sin against the
// values llama.cpp computes (float theta accumulated with powf's
// theta_scale, then glibc cosf/sinf), at angles where glibc is not
// correctly rounded.
func TestRoPEAnglesMatchLlamaCpp(t *testing.T) {
	cases := []struct {
		base            float32
		dims, pos, pair int
		cos, sin        uint32
	}{
		{10000, 128, 33, 23, 0x3eb71a4a, 0x3f6f11dc},  // theta 1.20507562
		{10000, 128, 68, 9, 0x3f795b90, 0xbe67bffc},   // theta 18.6212597
		{10000, 128, 95, 44, 0x3f7c5b09, 0x3e2c2b6c},  // theta 0.168936804
		{10000, 128, 121, 41, 0x3f72131f, 0x3ea6903c}, // theta 0.331349224
		{10000, 128, 143, 9, 0x3de1d3d1, 0x3f7e705c},  // theta 39.1594162
		{10000, 128, 164, 28, 0xbf798904, 0x3e64abfd}, // theta 2.91638136
		{10000, 128, 192, 15, 0xbf7bd54b, 0xbe38009b}, // theta 22.1718197
		{10000, 128, 218, 23, 0xbdda5a7b, 0x3f7e8a73}, // theta 7.96080256
		{10000, 128, 244, 6, 0xbf363efa, 0x3f33c8c7},  // theta 102.893959
		{10000, 128, 271, 54, 0x3f7e5485, 0x3de98944}, // theta 0.114279926
		{10000, 128, 301, 53, 0x3f7d413e, 0x3e158ef7}, // theta 0.146577477
		{10000, 128, 323, 63, 0x3f7fd26b, 0x3d18be57}, // theta 0.0372995436
		{10000, 128, 348, 17, 0x3e92a097, 0xbf754712}, // theta 30.1355782
		{10000, 128, 370, 37, 0xbe6a6e80, 0x3f793371}, // theta 1.80178201
		{10000, 128, 396, 22, 0xbf0c337b, 0xbf563203}, // theta 16.699194
		{10000, 128, 417, 15, 0xbf03ac93, 0xbf5b8a4e}, // theta 48.1544342
		{10000, 128, 444, 14, 0xbf62d924, 0x3eed48a3}, // theta 59.2083817
		{10000, 128, 473, 41, 0x3e8b4a0e, 0x3f765833}, // theta 1.29527426
		{10000, 128, 494, 47, 0x3f57766f, 0x3f0a3ee2}, // theta 0.5704633
		{10000, 128, 514, 8, 0x3f2e54be, 0xbf3b781d},  // theta 162.541122
		{10000, 128, 530, 9, 0x3f4fe752, 0x3f155f51},  // theta 145.136276
		{10000, 128, 549, 37, 0xbf647500, 0x3ee706f2}, // theta 2.67345524
		{10000, 128, 574, 39, 0xbf0060de, 0x3f5d7bce}, // theta 2.09610271
		{10000, 128, 600, 59, 0x3f7e0f2c, 0x3dfbb320}, // theta 0.123211756
		{1e+06, 64, 99, 11, 0x3f278bd9, 0x3f418e8c},   // theta 0.857304811
		{1e+06, 64, 157, 10, 0xbeffa901, 0x3f5dccef},  // theta 2.09362888
		{1e+06, 64, 216, 16, 0x3f7a0d1c, 0x3e5b77d8},  // theta 0.21600005
		{1e+06, 64, 305, 11, 0xbf609ca6, 0x3ef5a560},  // theta 2.64119172
		{1e+06, 64, 359, 0, 0x3f2753b2, 0x3f41bf19},   // theta 359
		{1e+06, 64, 429, 3, 0xbea6a4aa, 0xbf720f9b},   // theta 117.47821
		{1e+06, 64, 508, 8, 0xbf6fe983, 0xbeb2a41c},   // theta 16.0643692
		{1e+06, 64, 556, 7, 0xbeba08a2, 0x3f6e80de},   // theta 27.0753956
		{1e+06, 64, 626, 11, 0x3f269666, 0xbf4261f5},  // theta 5.42093754
		{1e+06, 64, 712, 12, 0xbf2694e7, 0xbf42633d},  // theta 4.00387049
		{1e+06, 64, 787, 8, 0x3f78512c, 0xbe78fc6b},   // theta 24.8871288
		{1e+06, 64, 846, 16, 0x3f29b93e, 0x3f3fa685},  // theta 0.846000254
		{1e+06, 64, 900, 8, 0xbf7b93a0, 0xbe3d889e},   // theta 28.4604988
		{1e+06, 64, 962, 13, 0xbf6e8c2e, 0xbeb9ce91},  // theta 3.51297522
		{1e+06, 64, 1022, 11, 0xbf56e2ce, 0x3f0b23eb}, // theta 8.85015678
		{1e+06, 64, 1084, 15, 0xbdc95ea9, 0x3f7ec26f}, // theta 1.66928053
	}
	ropes := map[[2]float32]*RoPE{}
	for _, tc := range cases {
		key := [2]float32{tc.base, float32(tc.dims)}
		r := ropes[key]
		if r == nil {
			var err error
			if r, err = NewRoPE(tc.dims, 0, tc.base, false, 2048); err != nil {
				t.Fatal(err)
			}
			ropes[key] = r
		}
		i := tc.pos*r.Dims + 2*tc.pair
		if c, s := math.Float32bits(r.cs[i]), math.Float32bits(r.cs[i+1]); c != tc.cos || s != tc.sin {
			t.Errorf("base %g dims %d pos %d pair %d: cos, sin = %08x, %08x; llama.cpp %08x, %08x",
				tc.base, tc.dims, tc.pos, tc.pair, c, s, tc.cos, tc.sin)
		}
		// The uncached path (positions beyond maxPos) must agree.
		var cs [128]float32
		r.angles(tc.pos, cs[:r.Dims])
		if cs[2*tc.pair] != r.cs[i] || cs[2*tc.pair+1] != r.cs[i+1] {
			t.Errorf("pos %d pair %d: angles() differs from the cache", tc.pos, tc.pair)
		}
	}
}

func BenchmarkSinCosf32(b *testing.B) {
	x := float32(0.1)
	var acc float32
	for i := 0; i < b.N; i++ {
		s, c := sincosf32(x)
		acc += s + c
		x += 0.37
		if x > 1e5 {
			x = 0.1
		}
	}
	_ = acc
}
