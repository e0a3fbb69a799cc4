%% Simulation Data
simu = simulationClass();
simu.simMechanicsFile = 'sphere.slx';
simu.startTime = 0;
simu.rampTime = 0;
simu.endTime = 40;
simu.dt = 0.01;
simu.dtOut = 0.05;
simu.rho = 1000;

%% Wave Information
% noWaveCIC, no waves with radiation CIC
waves = waveClass('noWaveCIC');

%% Body Data
body(1) = bodyClass('hydroData/sphere.h5');
body(1).mass = 'equilibrium';
body(1).inertia = [20907301 21306090.66 37085481.11];
body(1).initial.displacement = [0 0 -5*1e-1];  % heave decay from 0.5 m down
body(1).quadDrag.cd = [0 0 0.5 0 0 0];
body(1).quadDrag.area = [0 0 pi*5^2 0 0 0];

%% Constraint
% Translational
constraint(1) = constraintClass('Constraint1');
constraint(1).location = [0 0 -2];
